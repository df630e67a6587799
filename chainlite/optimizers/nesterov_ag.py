"""Nesterov's accelerated gradient."""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy

from chainlite.optimizers import _momentum

if TYPE_CHECKING:
    from chainlite import variable


@runtime_checkable
class NesterovAGHyperparameter(Protocol):
    """The hyperparameters :class:`NesterovAG` reads, for static type checkers.

    A :class:`~chainlite.optimizer.Hyperparameter` that has every attribute below
    satisfies this protocol (Chainer declares it for PEP 544 type checkers).

    Attributes:
        lr: The hyperparameter ``lr`` (float).
        momentum: The hyperparameter ``momentum`` (float).

    Example:
        >>> from chainlite.optimizers import nesterov_ag
        >>> isinstance(nesterov_ag._default_hyperparam, nesterov_ag.NesterovAGHyperparameter)
        True
    """

    lr: float
    momentum: float


_default_hyperparam = _momentum.default_hyperparam()


class NesterovAGRule(_momentum.MomentumRule):
    """Update rule of Nesterov's accelerated gradient.

    ``v = momentum * v - lr * grad``, then
    ``param += momentum ** 2 * v - (1 + momentum) * lr * grad``. State: ``v``.

    Args:
        parent_hyperparam: The Hyperparameter to fall back to (NesterovAG's defaults if None).
        lr: The learning rate.
        momentum: The decay rate of the velocity.
    """

    _default_hyperparam = _default_hyperparam

    def update_core(self, param: variable.Variable) -> None:
        grad, hp, p = param.grad, self.hyperparam, param.array
        assert grad is not None
        lr, momentum = hp.lr, hp.momentum
        state = self.state
        assert state is not None
        v, s = state['v'], self.scratch(grad)
        v *= momentum
        v -= numpy.multiply(grad, lr, out=s)
        p += numpy.multiply(v, momentum * momentum, out=s)
        p -= numpy.multiply(grad, (1 + momentum) * lr, out=s)


class NesterovAG(_momentum.MomentumMethod):
    """Nesterov's accelerated gradient (https://arxiv.org/abs/1212.0901).

    Args:
        lr: The learning rate.
        momentum: The decay rate of the velocity.

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite import optimizers
        >>> p = chainlite.Parameter(np.array([1.0], np.float32))
        >>> p.grad = np.array([1.0], np.float32)
        >>> optimizers.NesterovAG(lr=0.5, momentum=0.5).create_update_rule().update(p)
        >>> p.array   # 1 + 0.25 * (-0.5) - 1.5 * 0.5
        array([0.125], dtype=float32)
    """

    def create_update_rule(self) -> NesterovAGRule:
        """Returns a :class:`NesterovAGRule` reading this optimizer's hyperparameters."""
        return NesterovAGRule(self.hyperparam)
