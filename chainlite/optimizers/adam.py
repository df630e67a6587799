"""Adam and its variants AdamW, AMSGrad, AdaBound and AMSBound (one update rule for all)."""
from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Optional, Protocol, runtime_checkable

import numpy

from chainlite import backend
from chainlite import optimizer
from chainlite.optimizers import _packed

if TYPE_CHECKING:
    from chainlite import variable

_float16 = numpy.dtype(numpy.float16)
_float32 = numpy.dtype(numpy.float32)
_float64 = numpy.dtype(numpy.float64)


@runtime_checkable
class AdamHyperparameter(Protocol):
    """The hyperparameters :class:`Adam` reads, for static type checkers.

    A :class:`~chainlite.optimizer.Hyperparameter` that has every attribute below
    satisfies this protocol (Chainer declares it for PEP 544 type checkers).

    Attributes:
        alpha: The hyperparameter ``alpha`` (float).
        beta1: The hyperparameter ``beta1`` (float).
        beta2: The hyperparameter ``beta2`` (float).
        eps: The hyperparameter ``eps`` (float).
        eta: The hyperparameter ``eta`` (float).
        weight_decay_rate: The hyperparameter ``weight_decay_rate`` (float).
        amsgrad: The hyperparameter ``amsgrad`` (bool).
        adabound: The hyperparameter ``adabound`` (bool).
        final_lr: The hyperparameter ``final_lr`` (float).
        gamma: The hyperparameter ``gamma`` (float).

    Example:
        >>> from chainlite.optimizers import adam
        >>> isinstance(adam._default_hyperparam, adam.AdamHyperparameter)
        True
    """

    alpha: float
    beta1: float
    beta2: float
    eps: float
    eta: float
    weight_decay_rate: float
    amsgrad: bool
    adabound: bool
    final_lr: float
    gamma: float


_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.alpha = 0.001
_default_hyperparam.beta1 = 0.9
_default_hyperparam.beta2 = 0.999
_default_hyperparam.eps = 1e-8
_default_hyperparam.eta = 1.0
_default_hyperparam.weight_decay_rate = 0
_default_hyperparam.amsgrad = False
_default_hyperparam.adabound = False
_default_hyperparam.final_lr = 0.1
_default_hyperparam.gamma = 1e-3


def _learning_rate(hp: optimizer.Hyperparameter, t: int) -> float:
    if t == 0:
        raise RuntimeError("Can't determine the learning rate of Adam optimizer because the "
                           "update steps have not been started.")
    fix1 = 1. - math.pow(hp.beta1, t)
    fix2 = 1. - math.pow(hp.beta2, t)
    return hp.alpha * math.sqrt(fix2) / fix1


def _get_intermediate_dtype(dtype: numpy.dtype | type) -> numpy.dtype | type:
    # The dtype Adam computes in for parameters of ``dtype``: float32 for float16, else itself.
    if dtype == _float16:
        return numpy.float32
    return dtype


def _inplace_axpby(x: numpy.ndarray, a: float, b: float, y: numpy.ndarray) -> None:
    # x = a * x + b * y, written into x.
    if a == 1:
        x += b * y
    else:
        x[...] = a * x + b * y


def _update_moments(grad: numpy.ndarray, m: numpy.ndarray, v: numpy.ndarray,
                    s: numpy.ndarray, c1: numpy.ndarray, c2: numpy.ndarray) -> None:
    # m += (1 - beta1) (grad - m), v += (1 - beta2) (grad^2 - v), in place through scratch s.
    numpy.subtract(grad, m, out=s)
    s *= c1
    m += s
    numpy.multiply(grad, grad, out=s)
    s -= v
    s *= c2
    v += s


class AdamRule(optimizer.UpdateRule):
    """Update rule of Adam, with decoupled weight decay and the AMSGrad and AdaBound options.

    ``m += (1 - beta1) * (grad - m)``, ``v += (1 - beta2) * (grad ** 2 - v)``;
    with ``alpha_t = alpha * sqrt(1 - beta2 ** t) / (1 - beta1 ** t)`` the step is
    ``alpha_t / (sqrt(v) + eps)`` (``v`` replaced by its running maximum ``vhat`` under
    AMSGrad, the step clipped to :attr:`bounds` under AdaBound), and
    ``param -= eta * (step * m + weight_decay_rate * param)``.
    State: ``m``, ``v`` (and ``vhat`` with ``amsgrad``). float16 parameters are updated with
    float32 arithmetic.

    Args:
        parent_hyperparam: The Hyperparameter to fall back to (Adam's defaults if None).
        alpha: The learning rate coefficient.
        beta1: The decay rate of the first moment.
        beta2: The decay rate of the second moment.
        eps: A small value that keeps the denominator away from zero.
        eta: A schedule multiplier of the whole step (for warm restarts).
        weight_decay_rate: The decoupled weight decay rate (AdamW).
        amsgrad: Use the running maximum of the second moment (AMSGrad).
        adabound: Clip the step between bounds that converge to ``final_lr`` (AdaBound).
        final_lr: The learning rate the AdaBound bounds converge to.
        gamma: How fast the AdaBound bounds converge.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam: Optional[optimizer.Hyperparameter] = None,
                 alpha: Optional[float] = None, beta1: Optional[float] = None,
                 beta2: Optional[float] = None, eps: Optional[float] = None,
                 eta: Optional[float] = None, weight_decay_rate: Optional[float] = None,
                 amsgrad: Optional[bool] = None, adabound: Optional[bool] = None,
                 final_lr: Optional[float] = None, gamma: Optional[float] = None) -> None:
        super().__init__(_default_hyperparam if parent_hyperparam is None else parent_hyperparam)
        hp = self.hyperparam
        for name, value in (('alpha', alpha), ('beta1', beta1), ('beta2', beta2), ('eps', eps),
                            ('eta', eta), ('weight_decay_rate', weight_decay_rate),
                            ('amsgrad', amsgrad), ('adabound', adabound),
                            ('final_lr', final_lr), ('gamma', gamma)):
            if value is not None:
                setattr(hp, name, value)
        # AdaBound's final_lr follows later changes of alpha relative to this value.
        self.initial_alpha = hp.alpha
        self._coefficients_key: Optional[tuple] = None
        self._coefficients: tuple = ()
        self._s: Optional[numpy.ndarray] = None  # the scratch array

    def _drop_scratch(self) -> None:
        super()._drop_scratch()
        self._s = None

    def init_state(self, param: variable.Variable) -> None:
        xp = backend.get_array_module(param.array)
        state = self.state
        assert state is not None
        state['m'] = xp.zeros_like(param.array)
        state['v'] = xp.zeros_like(param.array)
        if self.hyperparam.amsgrad:
            state['vhat'] = xp.zeros_like(param.array)

    def update_core(self, param: variable.Variable) -> None:
        grad, hp, p = param.grad, optimizer._resolved(self.hyperparam), param.array
        assert grad is not None and p is not None
        # Each entry read once: a rule's lookup falls back to the optimizer's Hyperparameter.
        beta1, beta2, eps, eta = hp.beta1, hp.beta2, hp.eps, hp.eta
        # float16 parameters: the arithmetic runs in float32 (the scratch array's dtype).
        dtype = p.dtype
        if dtype == _float16:
            dtype = _float32
        key = (beta1, beta2, eps, dtype, p.__class__)
        if key != self._coefficients_key:
            self._set_coefficients(key)
        c1, c2, c_eps = self._coefficients
        state = self._state
        assert state is not None
        m, v = state['m'], state['v']
        s = self._s
        if s is None or s.shape != p.shape or s.dtype != dtype:
            s = self._s = self.scratch(p, dtype=dtype)
        alpha_t = _learning_rate(hp, self.t)
        _update_moments(grad, m, v, s, c1, c2)
        if hp.amsgrad:
            vhat = state['vhat']
            numpy.maximum(vhat, v, out=vhat)
        else:
            vhat = v
        numpy.sqrt(vhat, out=s)
        s += c_eps
        c = optimizer._coefficient_for(p)
        if hp.adabound:
            numpy.divide(alpha_t, s, out=s)
            lower, upper = self.bounds
            numpy.clip(s, lower, upper, out=s)
            s *= m
            s *= c(eta, dtype)
        else:
            numpy.divide(m, s, out=s)
            s *= c(eta * alpha_t, dtype)
        weight_decay_rate = hp.weight_decay_rate
        if weight_decay_rate != 0:
            p *= c(1 - eta * weight_decay_rate, p.dtype)
        p -= s

    def _set_coefficients(self, key: tuple) -> None:
        # The step's constant factors as 0-d arrays of the arithmetic's dtype (for NumPy
        # arrays; numbers for GPU arrays), computed when the hyperparameters, the dtype or
        # the array class change.
        beta1, beta2, eps, dtype, cls = key
        if eps != 0 and abs(eps) < 1e-30 and dtype.type(eps) == 0:  # cheap test first
            raise ValueError('eps of Adam optimizer is too small for %s (%s)'
                             % (dtype.name, eps))
        c = optimizer._coefficient if cls is numpy.ndarray else optimizer._as_is
        self._coefficients = c(1 - beta1, dtype), c(1 - beta2, dtype), c(eps, dtype)
        self._coefficients_key = key

    @property
    def alpha_t(self) -> float:
        """The bias-corrected learning rate of the current step."""
        return _learning_rate(self.hyperparam, self.t)

    @property
    def lr(self) -> float:
        """Deprecated alias of :attr:`alpha_t`."""
        warnings.warn('AdamRule.lr has been renamed to AdamRule.alpha_t. Use of AdamRule.lr '
                      'is deprecated in Chainer v6.', DeprecationWarning, stacklevel=2)
        return self.alpha_t

    @property
    def bounds(self) -> tuple:
        """AdaBound's ``(lower, upper)`` bounds of the step at the current ``t``."""
        if self.t == 0:
            raise RuntimeError("Can't determine the bounds of AdaBound optimizer because the "
                               "update steps have not been started.")
        hp = self.hyperparam
        final_lr = hp.final_lr * hp.alpha / self.initial_alpha
        lower = final_lr * (1.0 - 1.0 / (hp.gamma * self.t + 1))
        upper = final_lr * (1.0 + 1.0 / (hp.gamma * self.t))
        return lower, upper


# Parameters up to this size are updated together (the NumPy calls' fixed cost dominates
# theirs); larger ones gain nothing from it and would pay for copying their gradients.
_PACK_MAX_SIZE = 1 << 14


def _packable(params: list[variable.Parameter], hp: optimizer.Hyperparameter
              ) -> dict[int, tuple[variable.Parameter, AdamRule]]:
    # The parameters whose update is exactly AdamRule.update with this optimizer's plain
    # Adam hyperparameters, at the same step count and dtype; empty if fewer than two.
    if hp.amsgrad or hp.adabound:
        return {}
    found: dict[int, tuple[variable.Parameter, AdamRule]] = {}  # by id: a Variable is unhashable
    t = dtype = None
    for param in params:
        rule = param.update_rule
        data = param._data
        if rule is None or rule.__class__ is not AdamRule or data is None or \
                data.size > _PACK_MAX_SIZE or not rule.enabled or rule._state is None:
            continue
        rhp = rule.hyperparam.__dict__
        hooks = rule._hooks
        node = param._node
        if len(rhp) != 2 or rhp['_parent'] is not hp or hooks.pre or hooks.post or \
                node is None or node.grad_var is None or node._loss_scale is not None or \
                getattr(param, '_grad_never_cleared', False):
            continue
        if id(param) in found:  # a shared parameter is updated once per occurrence
            return {}
        if t is None:
            t, dtype, first = rule.t, data.dtype, data
            if dtype != _float32 and dtype != _float64:
                return {}
        elif rule.t != t or data.dtype != dtype or not optimizer._same_device(data, first):
            return {}
        found[id(param)] = param, rule
    return found if len(found) >= 2 else {}


class _PackedAdam:
    # The m and v of several AdamRules as views of two shared buffers, so that one NumPy
    # call updates them all: element by element the same arithmetic as AdamRule.update_core
    # (the same coefficients, the same order), hence the same bits. A rule's state stays
    # its own dict of arrays (serialized as before); if one is replaced (a load), or the
    # set of parameters changes, the buffers are built anew from the rules' state.

    def __init__(self, packable: dict[int, tuple[variable.Parameter, AdamRule]]) -> None:
        self.params = [param for param, _ in packable.values()]
        self.rules = [rule for _, rule in packable.values()]
        first = self.params[0]._data
        sizes = [p._data.size for p in self.params]
        total = sum(sizes)
        buffers, self.device_id = _packed.buffers(first, total, 4)
        self.m, self.v, self.s, self.g = buffers
        self.shapes = []
        self.g_views = []
        self.s_views = []
        offset = 0
        for param, rule, size in zip(self.params, self.rules, sizes):
            shape = param._data.shape
            end = offset + size
            state = rule._state
            assert state is not None
            for key, buf in (('m', self.m), ('v', self.v)):
                view = buf[offset:end].reshape(shape)
                backend.copyto(view, state[key])  # (the state may still be on another device)
                state[key] = view
            self.shapes.append(shape)
            self.g_views.append(self.g[offset:end].reshape(shape))
            self.s_views.append(self.s[offset:end].reshape(shape))
            offset = end
        self.m_views = [rule._state['m'] for rule in self.rules]  # type: ignore[index]
        self.v_views = [rule._state['v'] for rule in self.rules]  # type: ignore[index]

    def holds(self, params: list[variable.Parameter], hp: optimizer.Hyperparameter) -> bool:
        # Whether `params` are exactly these parameters, in order, each of which _packable
        # would pack again into these buffers (their state still the buffers' views). The
        # common step asks it of all the parameters, in one pass without building the
        # packable dict; on any doubt the update asks it of what _packable found.
        if len(params) != len(self.params) or hp.amsgrad or hp.adabound:
            return False
        t = self.rules[0].t
        dtype = self.m.dtype
        cls = self.m.__class__
        device_id = self.device_id
        for param, p, rule, shape, m, v in zip(params, self.params, self.rules, self.shapes,
                                                self.m_views, self.v_views):
            if param is not p or param.update_rule is not rule or not rule.enabled or \
                    rule.t != t:
                return False
            data, state, node = param._data, rule._state, param._node
            if data is None or data.shape != shape or data.dtype != dtype or \
                    state is None or state['m'] is not m or state['v'] is not v:
                return False
            if data.__class__ is not cls or (device_id is not None and
                                             data.device.id != device_id):
                return False  # the model moved (to_device)
            rhp = rule.hyperparam.__dict__
            hooks = rule._hooks
            if len(rhp) != 2 or rhp['_parent'] is not hp or hooks.pre or hooks.post or \
                    node is None or node.grad_var is None or node._loss_scale is not None or \
                    getattr(param, '_grad_never_cleared', False):
                return False
        return True

    def update(self, hp: optimizer.Hyperparameter) -> None:
        rules = self.rules
        for rule in rules:
            rule.t += 1
        rule = rules[0]
        beta1, beta2, eps, eta = hp.beta1, hp.beta2, hp.eps, hp.eta
        dtype = self.m.dtype
        key = (beta1, beta2, eps, dtype, self.m.__class__)
        if key != rule._coefficients_key:
            rule._set_coefficients(key)
        c1, c2, c_eps = rule._coefficients
        alpha_t = _learning_rate(hp, rule.t)
        for g, param in zip(self.g_views, self.params):
            # (copyto's effect without the Python frame of its dispatcher)
            g[...] = param._node.grad_var._data  # type: ignore[union-attr]
        g, m, v, s = self.g, self.m, self.v, self.s
        _update_moments(g, m, v, s, c1, c2)
        numpy.sqrt(v, out=s)
        s += c_eps
        numpy.divide(m, s, out=s)
        c = optimizer._coefficient_for(s)
        s *= c(eta * alpha_t, dtype)
        weight_decay_rate = hp.weight_decay_rate
        decay = None
        if weight_decay_rate != 0:
            decay = c(1 - eta * weight_decay_rate, dtype)
        for param, step in zip(self.params, self.s_views):
            p = param._data
            if decay is not None:
                p *= decay
            p -= step


class Adam(_packed.PackedUpdates):
    """Adam (https://arxiv.org/abs/1412.6980), with the AdamW, AMSGrad and AdaBound options.

    With the defaults ``eta=1`` and ``weight_decay_rate=0`` it is plain Adam; a nonzero
    ``weight_decay_rate`` decouples weight decay from the adaptive step
    (https://openreview.net/forum?id=rk6qdGgCZ). ``amsgrad`` uses the running maximum of the
    second moment (https://openreview.net/forum?id=ryQu7f-RZ); ``adabound`` clips the step
    between bounds converging to ``final_lr`` (https://openreview.net/forum?id=Bkg3g2R9FX);
    both together give AMSBound.

    Args:
        alpha: The learning rate coefficient.
        beta1: The decay rate of the first moment.
        beta2: The decay rate of the second moment.
        eps: A small value that keeps the denominator away from zero.
        eta: A schedule multiplier of the whole step.
        weight_decay_rate: The decoupled weight decay rate.
        amsgrad: Use the AMSGrad variant.
        adabound: Use the AdaBound variant.
        final_lr: The learning rate the AdaBound bounds converge to.
        gamma: How fast the AdaBound bounds converge.

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite import optimizers
        >>> p = chainlite.Parameter(np.array([1.0, 2.0], np.float32))
        >>> p.grad = np.array([0.5, -3.0], np.float32)
        >>> opt = optimizers.Adam(alpha=0.25)
        >>> opt.create_update_rule().update(p)   # the first step is alpha * sign(grad)
        >>> p.array.round(4)
        array([0.75, 2.25], dtype=float32)
    """

    def __init__(self, alpha: float = _default_hyperparam.alpha,
                 beta1: float = _default_hyperparam.beta1,
                 beta2: float = _default_hyperparam.beta2,
                 eps: float = _default_hyperparam.eps,
                 eta: float = _default_hyperparam.eta,
                 weight_decay_rate: float = _default_hyperparam.weight_decay_rate,
                 amsgrad: bool = _default_hyperparam.amsgrad,
                 adabound: bool = _default_hyperparam.adabound,
                 final_lr: float = _default_hyperparam.final_lr,
                 gamma: float = _default_hyperparam.gamma) -> None:
        super().__init__()
        hp = self.hyperparam
        hp.alpha = alpha
        hp.beta1 = beta1
        hp.beta2 = beta2
        hp.eps = eps
        hp.eta = eta
        hp.weight_decay_rate = weight_decay_rate
        hp.amsgrad = amsgrad
        hp.adabound = adabound
        hp.final_lr = final_lr
        hp.gamma = gamma

    alpha = optimizer.HyperparameterProxy('alpha')
    beta1 = optimizer.HyperparameterProxy('beta1')
    beta2 = optimizer.HyperparameterProxy('beta2')
    eps = optimizer.HyperparameterProxy('eps')
    eta = optimizer.HyperparameterProxy('eta')
    weight_decay_rate = optimizer.HyperparameterProxy('weight_decay_rate')
    amsgrad = optimizer.HyperparameterProxy('amsgrad')
    adabound = optimizer.HyperparameterProxy('adabound')
    final_lr = optimizer.HyperparameterProxy('final_lr')
    gamma = optimizer.HyperparameterProxy('gamma')

    _packable = staticmethod(_packable)
    _pack = _PackedAdam

    def create_update_rule(self) -> AdamRule:
        """Returns an :class:`AdamRule` reading this optimizer's hyperparameters."""
        return AdamRule(self.hyperparam)

    @property
    def alpha_t(self) -> float:
        """The bias-corrected learning rate at the optimizer's step count ``t``."""
        return _learning_rate(self.hyperparam, self.t)

    @property
    def lr(self) -> float:
        """Deprecated alias of :attr:`alpha_t`."""
        warnings.warn('Adam.lr has been renamed to AdamRule.alpha_t. Use of Adam.lr is '
                      'deprecated in Chainer v6.', DeprecationWarning, stacklevel=2)
        return self.alpha_t


class AdamW(Adam):
    """Adam with decoupled weight decay (https://openreview.net/forum?id=rk6qdGgCZ).

    Args:
        alpha: The learning rate coefficient.
        beta1: The decay rate of the first moment.
        beta2: The decay rate of the second moment.
        eps: A small value that keeps the denominator away from zero.
        eta: A schedule multiplier of the whole step.
        weight_decay_rate: The decoupled weight decay rate.

    Example:
        >>> from chainlite import optimizers
        >>> optimizers.AdamW(weight_decay_rate=0.01).weight_decay_rate
        0.01
    """

    def __init__(self, alpha: float = _default_hyperparam.alpha,
                 beta1: float = _default_hyperparam.beta1,
                 beta2: float = _default_hyperparam.beta2,
                 eps: float = _default_hyperparam.eps,
                 eta: float = _default_hyperparam.eta,
                 weight_decay_rate: float = _default_hyperparam.weight_decay_rate) -> None:
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta,
                         weight_decay_rate=weight_decay_rate)


class AMSGrad(Adam):
    """Adam with the running maximum of the second moment
    (https://openreview.net/forum?id=ryQu7f-RZ).

    Args:
        alpha: The learning rate coefficient.
        beta1: The decay rate of the first moment.
        beta2: The decay rate of the second moment.
        eps: A small value that keeps the denominator away from zero.
        eta: A schedule multiplier of the whole step.

    Example:
        >>> from chainlite import optimizers
        >>> optimizers.AMSGrad().amsgrad
        True
    """

    def __init__(self, alpha: float = _default_hyperparam.alpha,
                 beta1: float = _default_hyperparam.beta1,
                 beta2: float = _default_hyperparam.beta2,
                 eps: float = _default_hyperparam.eps,
                 eta: float = _default_hyperparam.eta) -> None:
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta, amsgrad=True)


class AdaBound(Adam):
    """Adam whose step is clipped between bounds converging to ``final_lr``
    (https://openreview.net/forum?id=Bkg3g2R9FX).

    Args:
        alpha: The learning rate coefficient.
        beta1: The decay rate of the first moment.
        beta2: The decay rate of the second moment.
        final_lr: The learning rate the bounds converge to.
        gamma: How fast the bounds converge.
        eps: A small value that keeps the denominator away from zero.
        eta: A schedule multiplier of the whole step.

    Example:
        >>> from chainlite import optimizers
        >>> opt = optimizers.AdaBound()
        >>> opt.adabound, opt.amsgrad, opt.final_lr
        (True, False, 0.1)
    """

    def __init__(self, alpha: float = _default_hyperparam.alpha,
                 beta1: float = _default_hyperparam.beta1,
                 beta2: float = _default_hyperparam.beta2,
                 final_lr: float = _default_hyperparam.final_lr,
                 gamma: float = _default_hyperparam.gamma,
                 eps: float = _default_hyperparam.eps,
                 eta: float = _default_hyperparam.eta) -> None:
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta,
                         amsgrad=False, adabound=True, final_lr=final_lr, gamma=gamma)


class AMSBound(Adam):
    """AdaBound with AMSGrad's running maximum of the second moment
    (https://openreview.net/forum?id=Bkg3g2R9FX).

    Args:
        alpha: The learning rate coefficient.
        beta1: The decay rate of the first moment.
        beta2: The decay rate of the second moment.
        final_lr: The learning rate the bounds converge to.
        gamma: How fast the bounds converge.
        eps: A small value that keeps the denominator away from zero.
        eta: A schedule multiplier of the whole step.

    Example:
        >>> from chainlite import optimizers
        >>> opt = optimizers.AMSBound()
        >>> opt.adabound, opt.amsgrad
        (True, True)
    """

    def __init__(self, alpha: float = _default_hyperparam.alpha,
                 beta1: float = _default_hyperparam.beta1,
                 beta2: float = _default_hyperparam.beta2,
                 final_lr: float = _default_hyperparam.final_lr,
                 gamma: float = _default_hyperparam.gamma,
                 eps: float = _default_hyperparam.eps,
                 eta: float = _default_hyperparam.eta) -> None:
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta,
                         amsgrad=True, adabound=True, final_lr=final_lr, gamma=gamma)
