"""Classical momentum SGD."""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy

from chainlite import optimizer
from chainlite.optimizers import _momentum

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
        c = optimizer._coefficient
        v *= c(hp.momentum, v.dtype)
        v -= numpy.multiply(grad, c(hp.lr, grad.dtype), out=self.scratch(grad))
        p += v


class MomentumSGD(_momentum.MomentumMethod):
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

    def create_update_rule(self) -> MomentumSGDRule:
        """Returns a :class:`MomentumSGDRule` reading this optimizer's hyperparameters."""
        return MomentumSGDRule(self.hyperparam)
