"""Classical momentum SGD."""
from __future__ import annotations

from typing import Optional

import numpy

from chainlite import backend
from chainlite import optimizer

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.momentum = 0.9


class MomentumSGDRule(optimizer.UpdateRule):
    """Update rule of momentum SGD: ``v = momentum * v - lr * grad; param += v``.

    State: ``v``, the velocity.

    Args:
        parent_hyperparam: The Hyperparameter to fall back to (MomentumSGD's defaults if None).
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
        grad, hp = param.grad, self.hyperparam
        v = self.state['v']
        v *= hp.momentum
        v -= numpy.multiply(grad, hp.lr, out=self.scratch(grad))
        param.array += v


class MomentumSGD(optimizer.GradientMethod):
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

    def __init__(self, lr: float = _default_hyperparam.lr,
                 momentum: float = _default_hyperparam.momentum) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.momentum = momentum

    lr = optimizer.HyperparameterProxy('lr')
    momentum = optimizer.HyperparameterProxy('momentum')

    def create_update_rule(self) -> MomentumSGDRule:
        """Returns a :class:`MomentumSGDRule` reading this optimizer's hyperparameters."""
        return MomentumSGDRule(self.hyperparam)
