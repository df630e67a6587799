"""Momentum SGD with the momentum correction of Goyal et al. (2017)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy

from chainlite.optimizers import _momentum

if TYPE_CHECKING:
    from chainlite import variable


@runtime_checkable
class CorrectedMomentumSGDHyperparameter(Protocol):
    """The hyperparameters :class:`CorrectedMomentumSGD` reads, for static type checkers.

    A :class:`~chainlite.optimizer.Hyperparameter` that has every attribute below
    satisfies this protocol (Chainer declares it for PEP 544 type checkers).

    Attributes:
        lr: The hyperparameter ``lr`` (float).
        momentum: The hyperparameter ``momentum`` (float).

    Example:
        >>> from chainlite.optimizers import corrected_momentum_sgd
        >>> hp = corrected_momentum_sgd._default_hyperparam
        >>> isinstance(hp, corrected_momentum_sgd.CorrectedMomentumSGDHyperparameter)
        True
    """

    lr: float
    momentum: float


_default_hyperparam = _momentum.default_hyperparam()


class CorrectedMomentumSGDRule(_momentum.MomentumRule):
    """Update rule of corrected momentum SGD: ``v = momentum * v - grad; param += lr * v``.

    The velocity does not include the learning rate, so changing ``lr`` during training
    scales the whole step at once. State: ``v``.

    Args:
        parent_hyperparam: The Hyperparameter to fall back to (the optimizer's defaults if
            None).
        lr: The learning rate.
        momentum: The decay rate of the velocity.
    """

    _default_hyperparam = _default_hyperparam

    def update_core(self, param: variable.Variable) -> None:
        grad, hp = param.grad, self.hyperparam
        assert grad is not None
        state = self.state
        assert state is not None
        v = state['v']
        v *= hp.momentum
        v -= grad
        param.array += numpy.multiply(v, hp.lr, out=self.scratch(grad))


class CorrectedMomentumSGD(_momentum.MomentumMethod):
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

    def create_update_rule(self) -> CorrectedMomentumSGDRule:
        """Returns a :class:`CorrectedMomentumSGDRule` reading this optimizer's
        hyperparameters."""
        return CorrectedMomentumSGDRule(self.hyperparam)
