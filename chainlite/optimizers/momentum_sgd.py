"""Classical momentum SGD."""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy

from chainlite import backend
from chainlite import optimizer
from chainlite.optimizers import _momentum
from chainlite.optimizers import _packed

if TYPE_CHECKING:
    from chainlite import variable


@runtime_checkable
class MomentumSGDHyperparameter(Protocol):
    """The hyperparameters :class:`MomentumSGD` reads, for static type checkers.

    A :class:`~chainlite.optimizer.Hyperparameter` that has every attribute below
    satisfies this protocol (Chainer declares it for PEP 544 type checkers).

    Attributes:
        lr: The hyperparameter ``lr`` (float).
        momentum: The hyperparameter ``momentum`` (float).

    Example:
        >>> from chainlite.optimizers import momentum_sgd
        >>> isinstance(momentum_sgd._default_hyperparam, momentum_sgd.MomentumSGDHyperparameter)
        True
    """

    lr: float
    momentum: float


_default_hyperparam = _momentum.default_hyperparam()


class MomentumSGDRule(_momentum.MomentumRule):
    """Update rule of momentum SGD: ``v = momentum * v - lr * grad; param += v``.

    State: ``v``, the velocity.

    Args:
        parent_hyperparam: The Hyperparameter to fall back to (MomentumSGD's defaults if None).
        lr: The learning rate.
        momentum: The decay rate of the velocity.
    """

    _default_hyperparam = _default_hyperparam

    def update_core(self, param: variable.Variable) -> None:
        grad, hp, p = param.grad, optimizer._resolved(self.hyperparam), param.array
        assert grad is not None and p is not None
        state = self._state
        assert state is not None
        v = state['v']
        c = optimizer._coefficient_for(v)
        v *= c(hp.momentum, v.dtype)
        v -= numpy.multiply(grad, c(hp.lr, grad.dtype), out=self.scratch(grad))
        p += v


# Parameters up to this size are updated together (the NumPy calls' fixed cost dominates
# theirs); larger ones gain nothing from it and would pay for copying their gradients.
_PACK_MAX_SIZE = 1 << 14


def _plain(param: variable.Parameter, rule: optimizer.UpdateRule,
           hp: optimizer.Hyperparameter) -> bool:
    # Whether rule.update(param) would be exactly update_core with the optimizer's own
    # hyperparameters: no per-rule value, no hook, no loss scale to divide out, a gradient of
    # the parameter's shape and dtype (float32 or float64), and a velocity.
    data, node, state = param._data, param._node, rule._state
    if data is None or node is None or state is None or not rule.enabled:
        return False
    gv = node.grad_var
    rhp = rule.hyperparam.__dict__
    hooks = rule._hooks
    if gv is None or len(rhp) != 2 or rhp['_parent'] is not hp or hooks.pre or hooks.post or \
            node._loss_scale is not None or getattr(param, '_grad_never_cleared', False):
        return False
    g, v, dtype = gv._data, state.get('v'), data.dtype
    return (dtype == numpy.float32 or dtype == numpy.float64) and g.dtype == dtype and \
        g.shape == data.shape and v is not None and v.dtype == dtype and v.shape == data.shape


def _packable(params: list[variable.Parameter], hp: optimizer.Hyperparameter
              ) -> dict[int, tuple[variable.Parameter, MomentumSGDRule]]:
    # The small parameters whose update is plain, all of one dtype; empty if fewer than two
    # or if a parameter appears twice (it is updated once per occurrence).
    found: dict[int, tuple[variable.Parameter, MomentumSGDRule]] = {}
    dtype = first = None
    for param in params:
        rule = param.update_rule
        data = param._data
        if rule is None or rule.__class__ is not MomentumSGDRule or data is None or \
                data.size > _PACK_MAX_SIZE or not _plain(param, rule, hp):
            continue
        if id(param) in found:
            return {}
        if dtype is None:
            dtype, first = data.dtype, data
        elif data.dtype != dtype or not optimizer._same_device(data, first):
            return {}
        found[id(param)] = param, rule
    return found if len(found) >= 2 else {}


class _PackedMomentumSGD:
    # The velocities of several MomentumSGDRules as views of one buffer, so that one NumPy
    # call updates them all: element by element MomentumSGDRule.update_core's arithmetic
    # (the same coefficients, the same order), hence the same bits. A rule's state stays its
    # own dict (serialized as before); if its velocity is replaced (a load) or the set of
    # parameters changes, the buffer is built anew from the rules' state.

    def __init__(self, packable: dict[int, tuple[variable.Parameter, MomentumSGDRule]]
                 ) -> None:
        self.params = [param for param, _ in packable.values()]
        self.rules = [rule for _, rule in packable.values()]
        total = sum(p._data.size for p in self.params)
        buffers, self.device_id = _packed.buffers(self.params[0]._data, total, 2)
        self.v, self.g = buffers
        self.v_views: list[numpy.ndarray] = []  # (or GPU arrays)
        self.g_views: list[numpy.ndarray] = []
        offset = 0
        for param, rule in zip(self.params, self.rules):
            data = param._data
            assert data is not None and rule._state is not None
            end = offset + data.size
            view = self.v[offset:end].reshape(data.shape)
            backend.copyto(view, rule._state['v'])  # (it may still be on another device)
            rule._state['v'] = view
            self.v_views.append(view)
            self.g_views.append(self.g[offset:end].reshape(data.shape))
            offset = end

    def holds(self, params: list[variable.Parameter], hp: optimizer.Hyperparameter) -> bool:
        # Whether `params` are exactly these parameters, in order, each still plain and its
        # velocity still the buffer's view.
        # (_plain's tests written out: this runs at every step)
        if len(params) != len(self.params):
            return False
        dtype = self.v.dtype
        cls = self.v.__class__
        device_id = self.device_id
        for param, p, rule, v in zip(params, self.params, self.rules, self.v_views):
            if param is not p or param.update_rule is not rule or not rule.enabled:
                return False
            data, node, state = param._data, param._node, rule._state
            if data is None or node is None or state is None or state.get('v') is not v or \
                    data.dtype != dtype or data.shape != v.shape:
                return False
            if data.__class__ is not cls or (device_id is not None and
                                             data.device.id != device_id):
                return False  # the model moved (to_device)
            gv = node.grad_var
            rhp = rule.hyperparam.__dict__
            hooks = rule._hooks
            if gv is None or len(rhp) != 2 or rhp['_parent'] is not hp or hooks.pre or \
                    hooks.post or node._loss_scale is not None or \
                    getattr(param, '_grad_never_cleared', False):
                return False
            g = gv._data
            if g.dtype != dtype or g.shape != v.shape:
                return False
        return True

    def update(self, hp: optimizer.Hyperparameter) -> None:
        for rule in self.rules:
            rule.t += 1
        for g, param in zip(self.g_views, self.params):
            # (copyto's effect without the Python frame of its dispatcher)
            g[...] = param._node.grad_var._data  # type: ignore[union-attr]
        g, v = self.g, self.v
        c = optimizer._coefficient_for(v)
        v *= c(hp.momentum, v.dtype)
        v -= numpy.multiply(g, c(hp.lr, g.dtype), out=g)
        for param, step in zip(self.params, self.v_views):
            param._data += step


class MomentumSGD(_packed.PackedUpdates, _momentum.MomentumMethod):
    """Momentum SGD: ``v = momentum * v - lr * grad; param += v``.

    Args:
        lr: The learning rate.
        momentum: The decay rate of the velocity.

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite import optimizers
        >>> p = chainlite.Parameter(np.array([1.0, 2.0], np.float32))
        >>> rule = optimizers.MomentumSGD(lr=0.1, momentum=0.5).create_update_rule()
        >>> for _ in range(2):
        ...     p.grad = np.array([1.0, -1.0], np.float32)
        ...     rule.update(p)
        >>> p.array
        array([0.75, 2.25], dtype=float32)
    """

    _packable = staticmethod(_packable)
    _pack = _PackedMomentumSGD

    def create_update_rule(self) -> MomentumSGDRule:
        """Returns a :class:`MomentumSGDRule` reading this optimizer's hyperparameters."""
        return MomentumSGDRule(self.hyperparam)

