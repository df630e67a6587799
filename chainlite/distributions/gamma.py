"""The gamma distribution."""
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


class Gamma(distribution.Distribution):
    """Gamma distribution with shape ``k`` and scale ``theta``.

    Density ``x^(k-1) exp(-x / theta) / (Gamma(k) theta^k)`` for x >= 0. Samples are
    differentiable with respect to ``theta`` (``theta * Gamma(k, 1)``), not ``k``, as in
    Chainer.

    Args:
        k: The shape (positive).
        theta: The scale (positive).

    Example:
        >>> import numpy as np
        >>> from chainlite import distributions as D
        >>> D.Gamma(np.array(2.0), np.array(3.0)).variance.array
        array(18.)
    """

    def __init__(self, k: VariableOrArray, theta: VariableOrArray) -> None:
        self.__k = k
        self.__theta = theta

    @functools.cached_property
    def k(self) -> variable.Variable:
        """The shape parameter."""
        return variable.as_variable(self.__k)

    @functools.cached_property
    def theta(self) -> variable.Variable:
        """The scale parameter."""
        return variable.as_variable(self.__theta)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.k.shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {'k': self.k, 'theta': self.theta}

    @property
    def support(self) -> str:
        return 'positive'

    @functools.cached_property
    def mean(self) -> variable.Variable:
        return self.k * self.theta

    @functools.cached_property
    def variance(self) -> variable.Variable:
        return self.mean * self.theta

    @functools.cached_property
    def stddev(self) -> variable.Variable:
        return F.sqrt(self.variance)

    @functools.cached_property
    def entropy(self) -> variable.Variable:
        return (self.k + F.log(self.theta) + F.lgamma(self.k)
                + (1 - self.k) * F.digamma(self.k))

    def log_prob(self, x: VariableOrArray) -> variable.Variable:
        x = utils._like(x, self.k)
        with numpy.errstate(divide='ignore', invalid='ignore'):
            logp = (-F.lgamma(self.k) - self.k * F.log(self.theta)
                    + (self.k - 1) * F.log(x) - x / self.theta)
        return utils._mask(utils._array(x) >= 0, logp, -numpy.inf)

    def sample_n(self, n: int) -> variable.Variable:
        k = utils._values(self.k)
        xp = backend.get_array_module(k)
        eps = xp.random.gamma(k, size=(n,) + self.batch_shape)
        return self.theta * eps.astype(self.k.dtype)


@distribution.register_kl(Gamma, Gamma)
def _kl_gamma_gamma(dist1: Gamma, dist2: Gamma) -> variable.Variable:
    return ((dist1.k - dist2.k) * F.digamma(dist1.k)
            - F.lgamma(dist1.k) + F.lgamma(dist2.k)
            + dist2.k * (F.log(dist2.theta) - F.log(dist1.theta))
            + dist1.k * (dist1.theta / dist2.theta - 1))
