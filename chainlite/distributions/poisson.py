"""The Poisson distribution."""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING


from chainlite import backend
from chainlite import distribution
from chainlite import functions as F
from chainlite import variable
from chainlite.distributions import utils

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray


class Poisson(distribution.Distribution):
    """Poisson distribution with rate ``lam`` over the non-negative integers.

    Args:
        lam: The rate (positive).

    Example:
        >>> import numpy as np
        >>> from chainlite import distributions as D
        >>> D.Poisson(np.array(2.0)).log_prob(np.array(0.0)).array
        array(-2.)
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
        return 'non negative integer'

    @functools.cached_property
    def mean(self) -> variable.Variable:
        return self.lam

    @functools.cached_property
    def variance(self) -> variable.Variable:
        return self.lam

    @functools.cached_property
    def stddev(self) -> variable.Variable:
        return F.sqrt(self.lam)

    def log_prob(self, x: VariableOrArray) -> variable.Variable:
        # The count is data, never differentiated: lgamma(x + 1) is a constant.
        x = utils._array(utils._like(x, self.lam)).astype(self.lam.dtype, copy=False)
        return x * self._log_lam - F.lgamma(x + 1) - self.lam

    def sample_n(self, n: int) -> variable.Variable:
        lam = utils._values(self.lam)
        xp = backend.get_array_module(lam)
        eps = xp.random.poisson(lam, size=(n,) + lam.shape)
        return variable.Variable(eps.astype(utils._random_dtype(lam.dtype)))


@distribution.register_kl(Poisson, Poisson)
def _kl_poisson_poisson(dist1: Poisson, dist2: Poisson) -> variable.Variable:
    return dist1.lam * (dist1._log_lam - dist2._log_lam) - dist1.lam + dist2.lam
