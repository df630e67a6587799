"""The chi-square distribution."""
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


class Chisquare(distribution.Distribution):
    """Chi-square distribution with ``k`` degrees of freedom (a Gamma(k/2, 2)).

    Args:
        k: The degrees of freedom (positive).

    Example:
        >>> import numpy as np
        >>> from chainlite import distributions as D
        >>> D.Chisquare(np.array(3.0)).variance.array
        array(6.)
    """

    def __init__(self, k: VariableOrArray) -> None:
        self.__k = k

    @functools.cached_property
    def k(self) -> variable.Variable:
        """The degrees of freedom."""
        return variable.as_variable(self.__k)

    @functools.cached_property
    def _half_k(self) -> variable.Variable:
        return 0.5 * self.k

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.k.shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {'k': self.k}

    @property
    def support(self) -> str:
        return 'positive'

    @functools.cached_property
    def mean(self) -> variable.Variable:
        return self.k

    @functools.cached_property
    def variance(self) -> variable.Variable:
        return 2 * self.k

    @functools.cached_property
    def stddev(self) -> variable.Variable:
        return F.sqrt(self.variance)

    @functools.cached_property
    def entropy(self) -> variable.Variable:
        h = self._half_k
        return h + math.log(2.0) + F.lgamma(h) + (1 - h) * F.digamma(h)

    def log_prob(self, x: VariableOrArray) -> variable.Variable:
        x = utils._like(x, self.k)
        h = self._half_k
        return -F.lgamma(h) - h * math.log(2.0) + (h - 1) * F.log(x) - 0.5 * x

    def sample_n(self, n: int) -> variable.Variable:
        k = utils._values(self.k)
        xp = backend.get_array_module(k)
        eps = xp.random.chisquare(k, (n,) + k.shape)
        return variable.Variable(eps.astype(utils._random_dtype(k.dtype)))
