"""Momentum SGD with the momentum correction of Goyal et al. (2017)."""
from __future__ import annotations

from typing import Optional

import numpy

from chainlite import backend
from chainlite import optimizer

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.momentum = 0.9


class CorrectedMomentumSGDRule(optimizer.UpdateRule):
    """Update rule of corrected momentum SGD: ``v = momentum * v - grad; param += lr * v``.

    The velocity does not include the learning rate, so changing ``lr`` during training
    scales the whole step at once. State: ``v``.

    Args:
        parent_hyperparam: The Hyperparameter to fall back to (the optimizer's defaults if
            None).
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
        v -= grad
        param.array += numpy.multiply(v, hp.lr, out=self.scratch(grad))


class CorrectedMomentumSGD(optimizer.GradientMethod):
    """Momentum SGD with momentum correction (equation 9 of https://arxiv.org/abs/1706.02677).

    Equivalent to :class:`MomentumSGD` while ``lr`` is constant; when ``lr`` changes, the
    accumulated velocity is rescaled with it.

    Args:
        lr: The learning rate.
        momentum: The decay rate of the velocity.

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite import optimizers
        >>> p = chainlite.Parameter(np.array([1.0], np.float32))
        >>> p.grad = np.array([1.0], np.float32)
        >>> optimizers.CorrectedMomentumSGD(lr=0.5).create_update_rule().update(p)
        >>> p.array
        array([0.5], dtype=float32)
    """

    def __init__(self, lr: float = _default_hyperparam.lr,
                 momentum: float = _default_hyperparam.momentum) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.momentum = momentum

    lr = optimizer.HyperparameterProxy('lr')
    momentum = optimizer.HyperparameterProxy('momentum')

    def create_update_rule(self) -> CorrectedMomentumSGDRule:
        """Returns a :class:`CorrectedMomentumSGDRule` reading this optimizer's
        hyperparameters."""
        return CorrectedMomentumSGDRule(self.hyperparam)
