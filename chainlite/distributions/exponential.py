"""The exponential distribution."""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy

from chainlite import backend
from chainlite import distribution
from chainlite import functions as F
from chainlite import variable
from chainlite.distributions import utils

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray


class Exponential(distribution.Distribution):
    """Exponential distribution with rate ``lam``: density ``lam exp(-lam x)`` for x >= 0.

    Sampling is reparameterized.

    Args:
        lam: The rate (positive).

    Example:
        >>> import numpy as np
        >>> from chainlite import distributions as D
        >>> D.Exponential(np.array(2.0)).mean.array
        array(0.5)
    """

    def __init__(self, lam: VariableOrArray) -> None:
        self.__lam = lam

    @functools.cached_property
    def lam(self) -> variable.Variable:
        """The rate."""
        return variable.as_variable(self.__lam)

    @functools.cached_property
    def _log_lam(self) -> variable.Variable:
        return F.log(self.lam)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.lam.shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {'lam': self.lam}

    @property
    def support(self) -> str:
        return 'positive'

    @functools.cached_property
    def mean(self) -> variable.Variable:
        return 1 / self.lam

    @functools.cached_property
    def variance(self) -> variable.Variable:
        return self.mean ** 2

    @functools.cached_property
    def stddev(self) -> variable.Variable:
        return self.mean

    @functools.cached_property
    def entropy(self) -> variable.Variable:
        return 1 - self._log_lam

    def log_prob(self, x: VariableOrArray) -> variable.Variable:
        logp = self._log_lam - self.lam * x
        return utils._mask(utils._array(x) >= 0, logp, -numpy.inf)

    def cdf(self, x: VariableOrArray) -> variable.Variable:
        return -F.expm1(-self.lam * x)

    def survival_function(self, x: VariableOrArray) -> variable.Variable:
        return F.exp(-self.lam * x)

    def log_survival_function(self, x: VariableOrArray) -> variable.Variable:
        return -self.lam * x

    def icdf(self, x: VariableOrArray) -> variable.Variable:
        return -F.log1p(-variable.as_variable(utils._like(x, self.lam))) / self.lam

    def sample_n(self, n: int) -> variable.Variable:
        xp = backend.get_array_module(self.lam.array)
        eps = xp.random.standard_exponential((n,) + self.lam.shape)
        return eps.astype(self.lam.dtype) / self.lam


@distribution.register_kl(Exponential, Exponential)
def _kl_exponential_exponential(dist1: Exponential, dist2: Exponential) -> variable.Variable:
    return dist1._log_lam - dist2._log_lam + dist2.lam / dist1.lam - 1
