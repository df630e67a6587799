"""AdaDelta."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Protocol, runtime_checkable

import numpy

from chainlite import backend
from chainlite import optimizer

if TYPE_CHECKING:
    from chainlite import variable


@runtime_checkable
class AdaDeltaHyperparameter(Protocol):
    """The hyperparameters :class:`AdaDelta` reads, for static type checkers.

    A :class:`~chainlite.optimizer.Hyperparameter` that has every attribute below
    satisfies this protocol (Chainer declares it for PEP 544 type checkers).

    Attributes:
        rho: The hyperparameter ``rho`` (float).
        eps: The hyperparameter ``eps`` (float).

    Example:
        >>> from chainlite.optimizers import ada_delta
        >>> isinstance(ada_delta._default_hyperparam, ada_delta.AdaDeltaHyperparameter)
        True
    """

    rho: float
    eps: float


_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.rho = 0.95
_default_hyperparam.eps = 1e-6


class AdaDeltaRule(optimizer.UpdateRule):
    """Update rule of AdaDelta.

    ``msg = rho * msg + (1 - rho) * grad ** 2``,
    ``dx = sqrt((msdx + eps) / (msg + eps)) * grad``,
    ``msdx = rho * msdx + (1 - rho) * dx ** 2``, ``param -= dx``.
    State: ``msg`` and ``msdx``, the mean squares of the gradient and of the step.

    Args:
        parent_hyperparam: The Hyperparameter to fall back to (AdaDelta's defaults if None).
        rho: The decay rate of both mean squares.
        eps: A small value that keeps the ratio finite.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam: Optional[optimizer.Hyperparameter] = None,
                 rho: Optional[float] = None, eps: Optional[float] = None) -> None:
        super().__init__(_default_hyperparam if parent_hyperparam is None else parent_hyperparam)
        if rho is not None:
            self.hyperparam.rho = rho
        if eps is not None:
            self.hyperparam.eps = eps

    def init_state(self, param: variable.Variable) -> None:
        xp = backend.get_array_module(param.array)
        state = self.state
        assert state is not None
        state['msg'] = xp.zeros_like(param.array)
        state['msdx'] = xp.zeros_like(param.array)

    def update_core(self, param: variable.Variable) -> None:
        grad, hp = param.grad, self.hyperparam
        assert grad is not None
        rho, eps = hp.rho, hp.eps
        state = self.state
        assert state is not None
        msg, msdx = state['msg'], state['msdx']
        dx, s = self.scratch(grad), self.scratch(grad, 1)
        msg *= rho
        numpy.multiply(grad, grad, out=s)
        s *= 1 - rho
        msg += s
        numpy.add(msdx, eps, out=dx)
        dx /= numpy.add(msg, eps, out=s)
        numpy.sqrt(dx, out=dx)
        dx *= grad
        msdx *= rho
        numpy.multiply(dx, dx, out=s)
        s *= 1 - rho
        msdx += s
        param.array -= dx


class AdaDelta(optimizer.GradientMethod):
    """AdaDelta (http://www.matthewzeiler.com/pubs/googleTR2012/googleTR2012.pdf).

    Args:
        rho: The decay rate of the mean squares of the gradient and of the step.
        eps: A small value that keeps the ratio finite.

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite import optimizers
        >>> p = chainlite.Parameter(np.array([1.0], np.float32))
        >>> p.grad = np.array([1.0], np.float32)
        >>> optimizers.AdaDelta(rho=0.5, eps=0.5).create_update_rule().update(p)
        >>> p.array   # 1 - sqrt(0.5 / (0.5 + 0.5))
        array([0.29289323], dtype=float32)
    """

    def __init__(self, rho: float = _default_hyperparam.rho,
                 eps: float = _default_hyperparam.eps) -> None:
        super().__init__()
        self.hyperparam.rho = rho
        self.hyperparam.eps = eps

    rho = optimizer.HyperparameterProxy('rho')
    eps = optimizer.HyperparameterProxy('eps')

    def create_update_rule(self) -> AdaDeltaRule:
        """Returns an :class:`AdaDeltaRule` reading this optimizer's hyperparameters."""
        return AdaDeltaRule(self.hyperparam)
