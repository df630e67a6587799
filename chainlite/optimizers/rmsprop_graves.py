"""Alex Graves's RMSprop, with momentum."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Protocol, runtime_checkable

import numpy

from chainlite import backend
from chainlite import optimizer

if TYPE_CHECKING:
    from chainlite import variable


@runtime_checkable
class RMSpropGravesHyperparameter(Protocol):
    """The hyperparameters :class:`RMSpropGraves` reads, for static type checkers.

    A :class:`~chainlite.optimizer.Hyperparameter` that has every attribute below
    satisfies this protocol (Chainer declares it for PEP 544 type checkers).

    Attributes:
        lr: The hyperparameter ``lr`` (float).
        alpha: The hyperparameter ``alpha`` (float).
        momentum: The hyperparameter ``momentum`` (float).
        eps: The hyperparameter ``eps`` (float).

    Example:
        >>> from chainlite.optimizers import rmsprop_graves
        >>> hp = rmsprop_graves._default_hyperparam
        >>> isinstance(hp, rmsprop_graves.RMSpropGravesHyperparameter)
        True
    """

    lr: float
    alpha: float
    momentum: float
    eps: float


_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 1e-4
_default_hyperparam.alpha = 0.95
_default_hyperparam.momentum = 0.9
_default_hyperparam.eps = 1e-4


class RMSpropGravesRule(optimizer.UpdateRule):
    """Update rule of Graves's RMSprop.

    ``n = alpha * n + (1 - alpha) * grad ** 2``, ``g = alpha * g + (1 - alpha) * grad``,
    ``delta = momentum * delta - lr * grad / sqrt(n - g ** 2 + eps)``, ``param += delta``.
    State: ``n``, ``g`` and ``delta``.

    Args:
        parent_hyperparam: The Hyperparameter to fall back to (RMSpropGraves's defaults if
            None).
        lr: The learning rate.
        alpha: The decay rate of the first and second moments of the gradient.
        momentum: The decay rate of the step.
        eps: A small value that keeps the square root away from zero.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam: Optional[optimizer.Hyperparameter] = None,
                 lr: Optional[float] = None, alpha: Optional[float] = None,
                 momentum: Optional[float] = None, eps: Optional[float] = None) -> None:
        super().__init__(_default_hyperparam if parent_hyperparam is None else parent_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr
        if alpha is not None:
            self.hyperparam.alpha = alpha
        if momentum is not None:
            self.hyperparam.momentum = momentum
        if eps is not None:
            self.hyperparam.eps = eps

    def init_state(self, param: variable.Variable) -> None:
        xp = backend.get_array_module(param.array)
        for key in ('n', 'g', 'delta'):
            state = self.state
            assert state is not None
            state[key] = xp.zeros_like(param.array)

    def update_core(self, param: variable.Variable) -> None:
        grad, hp = param.grad, self.hyperparam
        assert grad is not None
        state = self.state
        assert state is not None
        n, g, delta = state['n'], state['g'], state['delta']
        s = self.scratch(grad)
        n *= hp.alpha
        numpy.multiply(grad, grad, out=s)
        s *= 1 - hp.alpha
        n += s
        g *= hp.alpha
        g += numpy.multiply(grad, 1 - hp.alpha, out=s)
        numpy.multiply(g, g, out=s)
        numpy.subtract(n, s, out=s)
        s += hp.eps
        numpy.sqrt(s, out=s)
        numpy.divide(grad, s, out=s)
        s *= hp.lr
        delta *= hp.momentum
        delta -= s
        param.array += delta


class RMSpropGraves(optimizer.GradientMethod):
    """Graves's RMSprop with momentum (https://arxiv.org/abs/1308.0850).

    Args:
        lr: The learning rate.
        alpha: The decay rate of the first and second moments of the gradient.
        momentum: The decay rate of the step.
        eps: A small value that keeps the square root away from zero.

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite import optimizers
        >>> p = chainlite.Parameter(np.array([1.0], np.float32))
        >>> p.grad = np.array([2.0], np.float32)
        >>> optimizers.RMSpropGraves(lr=0.1, alpha=0.5, eps=0.0).create_update_rule().update(p)
        >>> p.array   # n = 2, g = 1: the step is 0.1 * 2 / sqrt(2 - 1)
        array([0.8], dtype=float32)
    """

    def __init__(self, lr: float = _default_hyperparam.lr,
                 alpha: float = _default_hyperparam.alpha,
                 momentum: float = _default_hyperparam.momentum,
                 eps: float = _default_hyperparam.eps) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.alpha = alpha
        self.hyperparam.momentum = momentum
        self.hyperparam.eps = eps

    lr = optimizer.HyperparameterProxy('lr')
    alpha = optimizer.HyperparameterProxy('alpha')
    momentum = optimizer.HyperparameterProxy('momentum')
    eps = optimizer.HyperparameterProxy('eps')

    def create_update_rule(self) -> RMSpropGravesRule:
        """Returns an :class:`RMSpropGravesRule` reading this optimizer's hyperparameters."""
        return RMSpropGravesRule(self.hyperparam)
