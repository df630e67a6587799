"""RMSprop."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Protocol, runtime_checkable

import numpy

from chainlite import backend
from chainlite import optimizer

if TYPE_CHECKING:
    from chainlite import variable


@runtime_checkable
class RMSpropHyperparameter(Protocol):
    """The hyperparameters :class:`RMSprop` reads, for static type checkers.

    A :class:`~chainlite.optimizer.Hyperparameter` that has every attribute below
    satisfies this protocol (Chainer declares it for PEP 544 type checkers).

    Attributes:
        lr: The hyperparameter ``lr`` (float).
        alpha: The hyperparameter ``alpha`` (float).
        eps: The hyperparameter ``eps`` (float).
        eps_inside_sqrt: The hyperparameter ``eps_inside_sqrt`` (bool).

    Example:
        >>> from chainlite.optimizers import rmsprop
        >>> isinstance(rmsprop._default_hyperparam, rmsprop.RMSpropHyperparameter)
        True
    """

    lr: float
    alpha: float
    eps: float
    eps_inside_sqrt: bool


_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.alpha = 0.99
_default_hyperparam.eps = 1e-8
_default_hyperparam.eps_inside_sqrt = False


class RMSpropRule(optimizer.UpdateRule):
    """Update rule of RMSprop.

    ``ms = alpha * ms + (1 - alpha) * grad ** 2``, then
    ``param -= lr * grad / (sqrt(ms) + eps)`` (or ``/ sqrt(ms + eps)`` with
    ``eps_inside_sqrt``). State: ``ms``, the mean square of the gradient.

    Args:
        parent_hyperparam: The Hyperparameter to fall back to (RMSprop's defaults if None).
        lr: The learning rate.
        alpha: The decay rate of the mean square.
        eps: A small value that keeps the denominator away from zero.
        eps_inside_sqrt: Add ``eps`` under the square root (as some other frameworks do).
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam: Optional[optimizer.Hyperparameter] = None,
                 lr: Optional[float] = None, alpha: Optional[float] = None,
                 eps: Optional[float] = None, eps_inside_sqrt: Optional[bool] = None) -> None:
        super().__init__(_default_hyperparam if parent_hyperparam is None else parent_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr
        if alpha is not None:
            self.hyperparam.alpha = alpha
        if eps is not None:
            self.hyperparam.eps = eps
        if eps_inside_sqrt is not None:
            self.hyperparam.eps_inside_sqrt = eps_inside_sqrt

    def init_state(self, param: variable.Variable) -> None:
        state = self.state
        assert state is not None
        state['ms'] = backend.get_array_module(param.array).zeros_like(param.array)

    def update_core(self, param: variable.Variable) -> None:
        grad, hp = param.grad, self.hyperparam
        assert grad is not None
        eps = grad.dtype.type(hp.eps)
        if hp.eps != 0 and eps == 0:
            raise ValueError('eps of RMSprop optimizer is too small for %s (%s)'
                             % (grad.dtype.name, hp.eps))
        state = self.state
        assert state is not None
        ms, s = state['ms'], self.scratch(grad)
        ms *= hp.alpha
        numpy.multiply(grad, grad, out=s)
        s *= 1 - hp.alpha
        ms += s
        if hp.eps_inside_sqrt:
            numpy.sqrt(numpy.add(ms, eps, out=s), out=s)
        else:
            numpy.sqrt(ms, out=s)
            s += eps
        numpy.divide(grad, s, out=s)
        s *= hp.lr
        param.array -= s


class RMSprop(optimizer.GradientMethod):
    """RMSprop (Tieleman and Hinton, 2012, Coursera lecture 6.5).

    Args:
        lr: The learning rate.
        alpha: The decay rate of the mean square of the gradient.
        eps: A small value that keeps the denominator away from zero.
        eps_inside_sqrt: Divide by ``sqrt(ms + eps)`` instead of ``sqrt(ms) + eps``.

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite import optimizers
        >>> p = chainlite.Parameter(np.array([1.0], np.float32))
        >>> p.grad = np.array([3.0], np.float32)
        >>> optimizers.RMSprop(lr=0.1, alpha=0.75).create_update_rule().update(p)
        >>> p.array
        array([0.8], dtype=float32)
    """

    def __init__(self, lr: float = _default_hyperparam.lr,
                 alpha: float = _default_hyperparam.alpha, eps: float = _default_hyperparam.eps,
                 eps_inside_sqrt: bool = _default_hyperparam.eps_inside_sqrt) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.alpha = alpha
        self.hyperparam.eps = eps
        self.hyperparam.eps_inside_sqrt = eps_inside_sqrt

    lr = optimizer.HyperparameterProxy('lr')
    alpha = optimizer.HyperparameterProxy('alpha')
    eps = optimizer.HyperparameterProxy('eps')
    eps_inside_sqrt = optimizer.HyperparameterProxy('eps_inside_sqrt')

    def create_update_rule(self) -> RMSpropRule:
        """Returns an :class:`RMSpropRule` reading this optimizer's hyperparameters."""
        return RMSpropRule(self.hyperparam)
