"""What the momentum optimizers share: the ``lr`` and ``momentum`` hyperparameters and the
velocity state ``v``. Each rule's update arithmetic stays in its own file."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from chainlite import backend
from chainlite import optimizer

if TYPE_CHECKING:
    from chainlite import variable


def default_hyperparam() -> optimizer.Hyperparameter:
    """A new Hyperparameter with the momentum optimizers' defaults."""
    hp = optimizer.Hyperparameter()
    hp.lr = 0.01
    hp.momentum = 0.9
    return hp


_defaults = default_hyperparam()


class MomentumRule(optimizer.UpdateRule):
    """An update rule with ``lr``, ``momentum`` and a zero-initialized velocity ``v``."""

    is_elementwise = True
    # The subclass's module-level defaults, the fallback without a parent_hyperparam.
    _default_hyperparam: optimizer.Hyperparameter = _defaults

    def __init__(self, parent_hyperparam: Optional[optimizer.Hyperparameter] = None,
                 lr: Optional[float] = None, momentum: Optional[float] = None) -> None:
        super().__init__(self._default_hyperparam if parent_hyperparam is None
                         else parent_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr
        if momentum is not None:
            self.hyperparam.momentum = momentum

    def init_state(self, param: variable.Variable) -> None:
        state = self.state
        assert state is not None
        state['v'] = backend.get_array_module(param.array).zeros_like(param.array)


class MomentumMethod(optimizer.GradientMethod):
    """A gradient method with the ``lr`` and ``momentum`` hyperparameters."""

    def __init__(self, lr: float = _defaults.lr, momentum: float = _defaults.momentum) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.momentum = momentum

    lr = optimizer.HyperparameterProxy('lr')
    momentum = optimizer.HyperparameterProxy('momentum')
