"""The log-normal distribution."""
from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING


from chainlite import backend
from chainlite import distribution
from chainlite import functions as F
from chainlite import variable
from chainlite.distributions import utils

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray

_LOGPROBC = -0.5 * math.log(2 * math.pi)
LOGPROBC = _LOGPROBC  # Chainer's public name


class LogNormal(distribution.Distribution):
    """Log-normal distribution: ``log x`` is ``N(mu, sigma ** 2)``; reparameterized sampling.

    Args:
        mu: The mean of ``log x``.
        sigma: The standard deviation of ``log x`` (positive).

    Example:
        >>> import numpy as np
        >>> from chainlite import distributions as D
        >>> D.LogNormal(np.array(0.0), np.array(1.0)).cdf(np.array(1.0)).array
        array(0.5)
    """

    def __init__(self, mu: VariableOrArray, sigma: VariableOrArray) -> None:
        self.__mu = mu
        self.__sigma = sigma

    @functools.cached_property
    def mu(self) -> variable.Variable:
        """The mean of ``log x``."""
        return variable.as_variable(self.__mu)

    @functools.cached_property
    def sigma(self) -> variable.Variable:
        """The standard deviation of ``log x``."""
        return variable.as_variable(self.__sigma)

    @functools.cached_property
    def _log_sigma(self) -> variable.Variable:
        return F.log(self.sigma)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.mu.shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {'mu': self.mu, 'sigma': self.sigma}

    @property
    def support(self) -> str:
        return 'positive'

    @functools.cached_property
    def mean(self) -> variable.Variable:
        return F.exp(self.mu + 0.5 * self.sigma ** 2)

    @functools.cached_property
    def variance(self) -> variable.Variable:
        return F.exp(2 * self.mu + self.sigma ** 2) * F.expm1(self.sigma ** 2)

    @functools.cached_property
    def stddev(self) -> variable.Variable:
        return F.sqrt(self.variance)

    @functools.cached_property
    def entropy(self) -> variable.Variable:
        return 0.5 - _LOGPROBC + self._log_sigma + self.mu

    def log_prob(self, x: VariableOrArray) -> variable.Variable:
        logx = F.log(utils._like(x, self.mu))
        return (_LOGPROBC - self._log_sigma - logx
                - 0.5 * ((logx - self.mu) / self.sigma) ** 2)

    def cdf(self, x: VariableOrArray) -> variable.Variable:
        return F.ndtr((F.log(utils._like(x, self.mu)) - self.mu) / self.sigma)

    def icdf(self, x: VariableOrArray) -> variable.Variable:
        return F.exp(self.mu + self.sigma * F.ndtri(utils._like(x, self.mu)))

    def sample_n(self, n: int) -> variable.Variable:
        xp = backend.get_array_module(self.mu.array)
        eps = xp.random.standard_normal((n,) + self.mu.shape).astype(self.mu.dtype)
        return F.exp(self.mu + self.sigma * eps)


@distribution.register_kl(LogNormal, LogNormal)
def _kl_log_normal_log_normal(dist1: LogNormal, dist2: LogNormal) -> variable.Variable:
    return (0.5 * ((dist1.mu - dist2.mu) ** 2 + dist1.sigma ** 2) / dist2.sigma ** 2 - 0.5
            + dist2._log_sigma - dist1._log_sigma)
