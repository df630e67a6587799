"""The beta distribution."""
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


def _lbeta(a: Any, b: Any) -> variable.Variable:
    return F.lgamma(a) + F.lgamma(b) - F.lgamma(a + b)


class Beta(distribution.Distribution):
    """Beta distribution on ``[0, 1]``: density ``x^(a-1) (1-x)^(b-1) / B(a, b)``.

    Args:
        a: The first shape parameter (positive).
        b: The second shape parameter (positive).

    Example:
        >>> import numpy as np
        >>> from chainlite import distributions as D
        >>> D.Beta(np.array(2.0), np.array(2.0)).mean.array
        array(0.5)
    """

    def __init__(self, a: VariableOrArray, b: VariableOrArray) -> None:
        self.__a = a
        self.__b = b

    @functools.cached_property
    def a(self) -> variable.Variable:
        """The first shape parameter."""
        return variable.as_variable(self.__a)

    @functools.cached_property
    def b(self) -> variable.Variable:
        """The second shape parameter."""
        return variable.as_variable(self.__b)

    @functools.cached_property
    def _a_plus_b(self) -> variable.Variable:
        return self.a + self.b

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.a.shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {'a': self.a, 'b': self.b}

    @property
    def support(self) -> str:
        return '[0, 1]'

    @functools.cached_property
    def mean(self) -> variable.Variable:
        return self.a / self._a_plus_b

    @functools.cached_property
    def variance(self) -> variable.Variable:
        apb = self._a_plus_b
        return self.a * self.b / apb ** 2 / (apb + 1)

    @functools.cached_property
    def stddev(self) -> variable.Variable:
        return F.sqrt(self.variance)

    @functools.cached_property
    def entropy(self) -> variable.Variable:
        apb = self._a_plus_b
        return (_lbeta(self.a, self.b) - (self.a - 1) * F.digamma(self.a)
                - (self.b - 1) * F.digamma(self.b) + (apb - 2) * F.digamma(apb))

    def log_prob(self, x: VariableOrArray) -> variable.Variable:
        x = variable.as_variable(utils._like(x, self.a))
        with numpy.errstate(divide='ignore', invalid='ignore'):
            logp = ((self.a - 1) * F.log(x) + (self.b - 1) * F.log1p(-x)
                    - _lbeta(self.a, self.b))
        return utils._mask((utils._values(x) >= 0) & (utils._values(x) <= 1), logp, -numpy.inf)

    def sample_n(self, n: int) -> variable.Variable:
        a = utils._values(self.a)
        xp = backend.get_array_module(a)
        eps = xp.random.beta(a, utils._values(self.b), size=(n,) + a.shape)
        return variable.Variable(eps.astype(utils._random_dtype(a.dtype)))


@distribution.register_kl(Beta, Beta)
def _kl_beta_beta(dist1: Beta, dist2: Beta) -> variable.Variable:
    apb1, apb2 = dist1._a_plus_b, dist2._a_plus_b
    return (_lbeta(dist2.a, dist2.b) - _lbeta(dist1.a, dist1.b)
            + (dist1.a - dist2.a) * F.digamma(dist1.a)
            + (dist1.b - dist2.b) * F.digamma(dist1.b)
            + (apb2 - apb1) * F.digamma(apb1))
