"""M-SVAG: momentum with stochastic variance-adapted gradients."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Protocol, runtime_checkable

import numpy

from chainlite import backend
from chainlite import optimizer

if TYPE_CHECKING:
    from chainlite import variable


@runtime_checkable
class MSVAGHyperparameter(Protocol):
    """The hyperparameters :class:`MSVAG` reads, for static type checkers.

    A :class:`~chainlite.optimizer.Hyperparameter` that has every attribute below
    satisfies this protocol (Chainer declares it for PEP 544 type checkers).

    Attributes:
        lr: The hyperparameter ``lr`` (float).
        beta: The hyperparameter ``beta`` (float).
        eta: The hyperparameter ``eta`` (float).
        weight_decay_rate: The hyperparameter ``weight_decay_rate`` (float).

    Example:
        >>> from chainlite.optimizers import msvag
        >>> isinstance(msvag._default_hyperparam, msvag.MSVAGHyperparameter)
        True
    """

    lr: float
    beta: float
    eta: float
    weight_decay_rate: float


_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.1
_default_hyperparam.beta = 0.9
_default_hyperparam.eta = 1.0
_default_hyperparam.weight_decay_rate = 0


class MSVAGRule(optimizer.UpdateRule):
    """Update rule of M-SVAG, with decoupled weight decay.

    ``m`` and ``v`` are moving averages of the gradient and its square; with their bias
    corrections ``mt`` and ``vt``, the step ``lr * mt`` is scaled elementwise by
    ``factor = mt ** 2 / (mt ** 2 + rho * s)``, ``s = (vt - mt ** 2) / (1 - rho)``, clipped
    to [0, 1] (NaN counts as 0); then
    ``param -= eta * (lr * mt * factor + weight_decay_rate * param)``. State: ``m`` and ``v``.

    Args:
        parent_hyperparam: The Hyperparameter to fall back to (MSVAG's defaults if None).
        lr: The learning rate.
        beta: The decay rate of both moving averages.
        eta: A schedule multiplier of the whole step.
        weight_decay_rate: The decoupled weight decay rate.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam: Optional[optimizer.Hyperparameter] = None,
                 lr: Optional[float] = None, beta: Optional[float] = None,
                 eta: Optional[float] = None, weight_decay_rate: Optional[float] = None) -> None:
        super().__init__(_default_hyperparam if parent_hyperparam is None else parent_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr
        if beta is not None:
            self.hyperparam.beta = beta
        if eta is not None:
            self.hyperparam.eta = eta
        if weight_decay_rate is not None:
            self.hyperparam.weight_decay_rate = weight_decay_rate

    @property
    def beta_power(self) -> float:
        """``beta ** (t + 1)``: the bias correction's power for the next update."""
        return self.hyperparam.beta ** (self.t + 1)

    def init_state(self, param: variable.Variable) -> None:
        xp = backend.get_array_module(param.array)
        state = self.state
        assert state is not None
        state['m'] = xp.zeros_like(param.array)
        state['v'] = xp.zeros_like(param.array)

    def update_core(self, param: variable.Variable) -> None:
        grad, hp, p = param.grad, self.hyperparam, param.array
        assert grad is not None
        state = self.state
        assert state is not None
        m, v = state['m'], state['v']
        a, b = self.scratch(grad), self.scratch(grad, 1)
        beta = hp.beta
        # Derived from t rather than multiplied at each step, so it survives serialization.
        beta_power = beta ** self.t
        rho = ((1.0 - beta) ** 2 * (1.0 - beta_power ** 2)
               / ((1.0 - beta_power) ** 2 * (1.0 - beta ** 2)))
        rho = min(rho, 0.9999)
        numpy.subtract(grad, m, out=a)
        a *= 1 - beta
        m += a
        numpy.multiply(grad, grad, out=a)
        a -= v
        a *= 1 - beta
        v += a
        mt2 = numpy.divide(m, 1 - beta_power, out=b)
        mt2 *= mt2
        # mt2 + rho * s with s = (vt - mt2) / (1 - rho).
        denom = numpy.divide(v, 1 - beta_power, out=a)
        denom -= mt2
        denom *= rho / (1 - rho)
        denom += mt2
        with numpy.errstate(invalid='ignore', divide='ignore'):
            factor = numpy.divide(mt2, denom, out=b)
        numpy.fmax(factor, 0, out=factor)  # fmax turns NaN (0 / 0) into 0
        numpy.minimum(factor, 1, out=factor)
        step = numpy.divide(m, 1 - beta_power, out=a)
        step *= factor
        step *= hp.eta * hp.lr
        if hp.weight_decay_rate != 0:
            p *= 1 - hp.eta * hp.weight_decay_rate
        p -= step


class MSVAG(optimizer.GradientMethod):
    """M-SVAG (https://arxiv.org/abs/1705.07774), with decoupled weight decay.

    Args:
        lr: The learning rate.
        beta: The decay rate of the moving averages of the gradient and its square.
        eta: A schedule multiplier of the whole step (for warm restarts).
        weight_decay_rate: The decoupled weight decay rate.

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite import optimizers
        >>> p = chainlite.Parameter(np.array([1.0], np.float32))
        >>> p.grad = np.array([2.0], np.float32)
        >>> optimizers.MSVAG(lr=0.25).create_update_rule().update(p)
        >>> p.array
        array([0.5], dtype=float32)
    """

    def __init__(self, lr: float = _default_hyperparam.lr,
                 beta: float = _default_hyperparam.beta, eta: float = _default_hyperparam.eta,
                 weight_decay_rate: float = _default_hyperparam.weight_decay_rate) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.beta = beta
        self.hyperparam.eta = eta
        self.hyperparam.weight_decay_rate = weight_decay_rate

    lr = optimizer.HyperparameterProxy('lr')
    beta = optimizer.HyperparameterProxy('beta')
    eta = optimizer.HyperparameterProxy('eta')
    weight_decay_rate = optimizer.HyperparameterProxy('weight_decay_rate')

    def create_update_rule(self) -> MSVAGRule:
        """Returns an :class:`MSVAGRule` reading this optimizer's hyperparameters."""
        return MSVAGRule(self.hyperparam)
