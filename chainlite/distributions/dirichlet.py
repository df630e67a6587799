"""The Dirichlet distribution over the probability simplex."""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import distribution
from chainlite import functions as F
from chainlite import variable
from chainlite.distributions import utils

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray


def _lbeta(alpha: Any) -> variable.Variable:
    return F.sum(F.lgamma(alpha), axis=-1) - F.lgamma(F.sum(alpha, axis=-1))


class Dirichlet(distribution.Distribution):
    """Dirichlet distribution; the last axis of ``alpha`` is the event.

    Args:
        alpha: Concentration parameters (positive), shape ``batch_shape + (K,)``.

    Example:
        >>> import numpy as np
        >>> from chainlite import distributions as D
        >>> D.Dirichlet(np.array([1.0, 3.0])).mean.array
        array([0.25, 0.75])
    """

    def __init__(self, alpha: VariableOrArray) -> None:
        self.__alpha = alpha

    @functools.cached_property
    def alpha(self) -> variable.Variable:
        """The concentration parameters."""
        return variable.as_variable(self.__alpha)

    @functools.cached_property
    def alpha0(self) -> variable.Variable:
        """The sum of the concentration parameters."""
        return F.sum(self.alpha, axis=-1)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.alpha.shape[:-1]

    @property
    def event_shape(self) -> tuple[int, ...]:
        return self.alpha.shape[-1:]

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {'alpha': self.alpha}

    @property
    def support(self) -> str:
        return '[0, 1]'

    @functools.cached_property
    def mean(self) -> variable.Variable:
        return self.alpha / F.expand_dims(self.alpha0, axis=-1)

    @functools.cached_property
    def variance(self) -> variable.Variable:
        alpha0 = F.expand_dims(self.alpha0, axis=-1)
        return self.alpha * (alpha0 - self.alpha) / alpha0 ** 2 / (alpha0 + 1)

    @functools.cached_property
    def stddev(self) -> variable.Variable:
        return F.sqrt(self.variance)

    @functools.cached_property
    def entropy(self) -> variable.Variable:
        k = self.event_shape[0]
        return (_lbeta(self.alpha) + (self.alpha0 - k) * F.digamma(self.alpha0)
                - F.sum((self.alpha - 1) * F.digamma(self.alpha), axis=-1))

    def log_prob(self, x: VariableOrArray) -> variable.Variable:
        x = utils._like(x, self.alpha)
        return -_lbeta(self.alpha) + F.sum((self.alpha - 1) * F.log(x), axis=-1)

    def sample_n(self, n: int) -> variable.Variable:
        alpha = utils._values(self.alpha)
        xp = backend.get_array_module(alpha)
        rows = alpha.reshape(-1, alpha.shape[-1]).astype(numpy.float64)
        # One row at a time: NumPy's dirichlet takes one vector of concentrations.
        eps = xp.stack([xp.random.dirichlet(row, size=n) for row in rows], axis=1)
        eps = eps.reshape((n,) + alpha.shape).astype(utils._random_dtype(alpha.dtype))
        return variable.Variable(eps)


@distribution.register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(dist1: Dirichlet, dist2: Dirichlet) -> variable.Variable:
    dig = F.digamma(dist1.alpha) - F.expand_dims(F.digamma(dist1.alpha0), axis=-1)
    return (_lbeta(dist2.alpha) - _lbeta(dist1.alpha)
            + F.sum((dist1.alpha - dist2.alpha) * dig, axis=-1))
