"""AdaGrad."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Protocol, runtime_checkable

import numpy

from chainlite import backend
from chainlite import optimizer

if TYPE_CHECKING:
    from chainlite import variable


@runtime_checkable
class AdaGradHyperparameter(Protocol):
    """The hyperparameters :class:`AdaGrad` reads, for static type checkers.

    A :class:`~chainlite.optimizer.Hyperparameter` that has every attribute below
    satisfies this protocol (Chainer declares it for PEP 544 type checkers).

    Attributes:
        lr: The hyperparameter ``lr`` (float).
        eps: The hyperparameter ``eps`` (float).

    Example:
        >>> from chainlite.optimizers import ada_grad
        >>> isinstance(ada_grad._default_hyperparam, ada_grad.AdaGradHyperparameter)
        True
    """

    lr: float
    eps: float


_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.001
_default_hyperparam.eps = 1e-8


class AdaGradRule(optimizer.UpdateRule):
    """Update rule of AdaGrad: ``h += grad ** 2; param -= lr * grad / (sqrt(h) + eps)``.

    State: ``h``, the sum of squared gradients.

    Args:
        parent_hyperparam: The Hyperparameter to fall back to (AdaGrad's defaults if None).
        lr: The learning rate.
        eps: A small value that keeps the denominator away from zero.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam: Optional[optimizer.Hyperparameter] = None,
                 lr: Optional[float] = None, eps: Optional[float] = None) -> None:
        super().__init__(_default_hyperparam if parent_hyperparam is None else parent_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr
        if eps is not None:
            self.hyperparam.eps = eps

    def init_state(self, param: variable.Variable) -> None:
        state = self.state
        assert state is not None
        state['h'] = backend.get_array_module(param.array).zeros_like(param.array)

    def update_core(self, param: variable.Variable) -> None:
        grad, hp = param.grad, self.hyperparam
        assert grad is not None
        state = self.state
        assert state is not None
        h, s = state['h'], self.scratch(grad)
        h += numpy.multiply(grad, grad, out=s)
        numpy.sqrt(h, out=s)
        s += hp.eps
        numpy.divide(grad, s, out=s)
        s *= hp.lr
        param.array -= s


class AdaGrad(optimizer.GradientMethod):
    """AdaGrad (http://jmlr.org/papers/v12/duchi11a.html).

    Args:
        lr: The learning rate.
        eps: A small value that keeps the denominator away from zero.

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite import optimizers
        >>> p = chainlite.Parameter(np.array([1.0, 2.0], np.float32))
        >>> p.grad = np.array([2.0, -0.5], np.float32)
        >>> optimizers.AdaGrad(lr=0.1).create_update_rule().update(p)
        >>> p.array
        array([0.9, 2.1], dtype=float32)
    """

    def __init__(self, lr: float = _default_hyperparam.lr,
                 eps: float = _default_hyperparam.eps) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.eps = eps

    lr = optimizer.HyperparameterProxy('lr')
    eps = optimizer.HyperparameterProxy('eps')

    def create_update_rule(self) -> AdaGradRule:
        """Returns an :class:`AdaGradRule` reading this optimizer's hyperparameters."""
        return AdaGradRule(self.hyperparam)
