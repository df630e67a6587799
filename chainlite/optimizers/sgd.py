"""Vanilla stochastic gradient descent."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Protocol, runtime_checkable

import numpy

from chainlite import optimizer

if TYPE_CHECKING:
    from chainlite import variable


@runtime_checkable
class SGDHyperparameter(Protocol):
    """The hyperparameters :class:`SGD` reads, for static type checkers.

    A :class:`~chainlite.optimizer.Hyperparameter` that has every attribute below
    satisfies this protocol (Chainer declares it for PEP 544 type checkers).

    Attributes:
        lr: The hyperparameter ``lr`` (float).

    Example:
        >>> from chainlite.optimizers import sgd
        >>> isinstance(sgd._default_hyperparam, sgd.SGDHyperparameter)
        True
    """

    lr: float


_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01


class SGDRule(optimizer.UpdateRule):
    """Update rule of SGD: ``param -= lr * grad``.

    Args:
        parent_hyperparam: The Hyperparameter to fall back to (SGD's defaults if None).
        lr: The learning rate (overrides the parent's).
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam: Optional[optimizer.Hyperparameter] = None,
                 lr: Optional[float] = None) -> None:
        super().__init__(_default_hyperparam if parent_hyperparam is None else parent_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr

    def update_core(self, param: variable.Variable) -> None:
        grad, p = param.grad, param.array
        assert grad is not None and p is not None
        c = optimizer._coefficient_for(grad)
        lr = c(optimizer._resolved(self.hyperparam).lr, grad.dtype)
        p -= numpy.multiply(grad, lr, out=self.scratch(grad))


class SGD(optimizer.GradientMethod):
    """Vanilla stochastic gradient descent: ``param -= lr * grad``.

    Args:
        lr: The learning rate.

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite import optimizers
        >>> p = chainlite.Parameter(np.array([1.0, 2.0], np.float32))
        >>> p.grad = np.array([1.0, -1.0], np.float32)
        >>> optimizers.SGD(lr=0.1).create_update_rule().update(p)
        >>> p.array
        array([0.9, 2.1], dtype=float32)
    """

    def __init__(self, lr: float = _default_hyperparam.lr) -> None:
        super().__init__()
        self.hyperparam.lr = lr

    lr = optimizer.HyperparameterProxy('lr')

    def create_update_rule(self) -> SGDRule:
        """Returns an :class:`SGDRule` reading this optimizer's hyperparameters."""
        return SGDRule(self.hyperparam)
