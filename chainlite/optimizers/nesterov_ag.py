"""Nesterov's accelerated gradient."""
from __future__ import annotations

from typing import Optional

import numpy

from chainlite import backend
from chainlite import optimizer

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.momentum = 0.9


class NesterovAGRule(optimizer.UpdateRule):
    """Update rule of Nesterov's accelerated gradient.

    ``v = momentum * v - lr * grad``, then
    ``param += momentum ** 2 * v - (1 + momentum) * lr * grad``. State: ``v``.

    Args:
        parent_hyperparam: The Hyperparameter to fall back to (NesterovAG's defaults if None).
        lr: The learning rate.
        momentum: The decay rate of the velocity.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam: Optional[optimizer.Hyperparameter] = None,
                 lr: Optional[float] = None, momentum: Optional[float] = None) -> None:
        super().__init__(_default_hyperparam if parent_hyperparam is None else parent_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr
        if momentum is not None:
            self.hyperparam.momentum = momentum

    def init_state(self, param) -> None:
        self.state['v'] = backend.get_array_module(param.array).zeros_like(param.array)

    def update_core(self, param) -> None:
        grad, hp, p = param.grad, self.hyperparam, param.array
        lr, momentum = hp.lr, hp.momentum
        v, s = self.state['v'], self.scratch(grad)
        v *= momentum
        v -= numpy.multiply(grad, lr, out=s)
        p += numpy.multiply(v, momentum * momentum, out=s)
        p -= numpy.multiply(grad, (1 + momentum) * lr, out=s)


class NesterovAG(optimizer.GradientMethod):
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

    def __init__(self, lr: float = _default_hyperparam.lr,
                 momentum: float = _default_hyperparam.momentum) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.momentum = momentum

    lr = optimizer.HyperparameterProxy('lr')
    momentum = optimizer.HyperparameterProxy('momentum')

    def create_update_rule(self) -> NesterovAGRule:
        """Returns a :class:`NesterovAGRule` reading this optimizer's hyperparameters."""
        return NesterovAGRule(self.hyperparam)
