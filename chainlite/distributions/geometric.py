"""The geometric distribution."""
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


class Geometric(distribution.Distribution):
    """Geometric distribution: the number of trials up to the first success, ``x >= 1``.

    Args:
        p: The success probability of each trial.

    Example:
        >>> import numpy as np
        >>> from chainlite import distributions as D
        >>> D.Geometric(np.array(0.25)).mean.array
        array(4.)
    """

    def __init__(self, p: VariableOrArray) -> None:
        self.__p = p

    @functools.cached_property
    def p(self) -> variable.Variable:
        """The success probability."""
        return variable.as_variable(self.__p)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.p.shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {'p': self.p}

    @property
    def support(self) -> str:
        return 'positive integer'

    @functools.cached_property
    def mean(self) -> variable.Variable:
        return 1 / self.p

    @functools.cached_property
    def variance(self) -> variable.Variable:
        return (1 - self.p) / self.p ** 2

    @functools.cached_property
    def stddev(self) -> variable.Variable:
        return F.sqrt(self.variance)

    @functools.cached_property
    def entropy(self) -> variable.Variable:
        q = 1 - self.p
        return -(utils._modified_xlogx(q) + utils._modified_xlogx(self.p)) / self.p

    def log_prob(self, x: VariableOrArray) -> variable.Variable:
        return (x - 1) * F.log1p(-self.p) + F.log(self.p)

    def sample_n(self, n: int) -> variable.Variable:
        p = utils._values(self.p)
        xp = backend.get_array_module(p)
        eps = xp.random.geometric(p, size=(n,) + p.shape)
        return variable.Variable(eps.astype(utils._random_dtype(p.dtype)))


@distribution.register_kl(Geometric, Geometric)
def _kl_geometric_geometric(dist1: Geometric, dist2: Geometric) -> variable.Variable:
    return ((1 / dist1.p - 1) * (F.log1p(-dist1.p) - F.log1p(-dist2.p))
            + F.log(dist1.p) - F.log(dist2.p))
