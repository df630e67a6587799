"""SMORMS3 (squared mean over root mean squared cubed)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Protocol, runtime_checkable

import numpy

from chainlite import backend
from chainlite import optimizer

if TYPE_CHECKING:
    from chainlite import variable


@runtime_checkable
class SMORMS3Hyperparameter(Protocol):
    """The hyperparameters :class:`SMORMS3` reads, for static type checkers.

    A :class:`~chainlite.optimizer.Hyperparameter` that has every attribute below
    satisfies this protocol (Chainer declares it for PEP 544 type checkers).

    Attributes:
        lr: The hyperparameter ``lr`` (float).
        eps: The hyperparameter ``eps`` (float).

    Example:
        >>> from chainlite.optimizers import smorms3
        >>> isinstance(smorms3._default_hyperparam, smorms3.SMORMS3Hyperparameter)
        True
    """

    lr: float
    eps: float


_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.001
_default_hyperparam.eps = 1e-16


class SMORMS3Rule(optimizer.UpdateRule):
    """Update rule of SMORMS3.

    With ``r = 1 / (mem + 1)``: ``g = (1 - r) * g + r * grad``,
    ``g2 = (1 - r) * g2 + r * grad ** 2``, ``x = g ** 2 / (g2 + eps)``,
    ``param -= grad * min(x, lr) / (sqrt(g2) + eps)``, ``mem = 1 + mem * (1 - x)``.
    State: ``mem`` (starting at ones), ``g`` and ``g2``.

    Args:
        parent_hyperparam: The Hyperparameter to fall back to (SMORMS3's defaults if None).
        lr: The learning rate (the largest step factor).
        eps: A small value that keeps the denominators away from zero.
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
        xp = backend.get_array_module(param.array)
        state = self.state
        assert state is not None
        state['mem'] = xp.ones_like(param.array)
        state['g'] = xp.zeros_like(param.array)
        state['g2'] = xp.zeros_like(param.array)

    def update_core(self, param: variable.Variable) -> None:
        grad, hp = param.grad, self.hyperparam
        assert grad is not None
        state = self.state
        assert state is not None
        mem, g, g2 = state['mem'], state['g'], state['g2']
        a, b = self.scratch(grad), self.scratch(grad, 1)
        r = numpy.add(mem, 1, out=a)
        numpy.divide(1, r, out=r)
        # (1 - r) * g + r * grad, written as g + r * (grad - g) to stay in place.
        numpy.subtract(grad, g, out=b)
        b *= r
        g += b
        numpy.multiply(grad, grad, out=b)
        b -= g2
        b *= r
        g2 += b
        x = numpy.multiply(g, g, out=a)
        x /= numpy.add(g2, hp.eps, out=b)
        step = numpy.minimum(x, hp.lr, out=b)
        step *= grad
        # x is needed by mem only; then its array holds the denominator.
        numpy.subtract(1, x, out=x)
        mem *= x
        mem += 1
        denom = numpy.sqrt(g2, out=a)
        denom += hp.eps
        step /= denom
        param.array -= step


class SMORMS3(optimizer.GradientMethod):
    """SMORMS3 (http://sifter.org/~simon/journal/20150420.html).

    Args:
        lr: The learning rate.
        eps: A small value that keeps the denominators away from zero.

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite import optimizers
        >>> p = chainlite.Parameter(np.array([1.0], np.float32))
        >>> p.grad = np.array([2.0], np.float32)
        >>> optimizers.SMORMS3(lr=0.25).create_update_rule().update(p)
        >>> p.array.round(4)   # 1 - 2 * min(0.5, 0.25) / sqrt(2)
        array([0.6464], dtype=float32)
    """

    def __init__(self, lr: float = _default_hyperparam.lr,
                 eps: float = _default_hyperparam.eps) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.eps = eps

    lr = optimizer.HyperparameterProxy('lr')
    eps = optimizer.HyperparameterProxy('eps')

    def create_update_rule(self) -> SMORMS3Rule:
        """Returns an :class:`SMORMS3Rule` reading this optimizer's hyperparameters."""
        return SMORMS3Rule(self.hyperparam)
