"""The Gumbel (type I extreme value) distribution."""
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

_EULER = 0.57721566490153286060651209008240243104215933593992
EULER = _EULER  # Chainer's public name


class Gumbel(utils.LocScale):
    """Gumbel distribution: cdf ``exp(-exp(-(x - loc) / scale))``; reparameterized sampling.

    Args:
        loc: The location (mode).
        scale: The scale (positive).

    Example:
        >>> import numpy as np
        >>> from chainlite import distributions as D
        >>> round(float(D.Gumbel(np.array(0.0), np.array(1.0)).cdf(np.array(0.0)).array), 4)
        0.3679
    """

    @functools.cached_property
    def _log_scale(self) -> variable.Variable:
        return F.log(self.scale)

    @functools.cached_property
    def mean(self) -> variable.Variable:
        return self.loc + _EULER * self.scale

    @functools.cached_property
    def mode(self) -> variable.Variable:
        return self.loc

    @functools.cached_property
    def variance(self) -> variable.Variable:
        return (math.pi ** 2 / 6) * self.scale ** 2

    @functools.cached_property
    def stddev(self) -> variable.Variable:
        return (math.pi / math.sqrt(6)) * self.scale

    @functools.cached_property
    def entropy(self) -> variable.Variable:
        return self._log_scale + (_EULER + 1)

    def log_prob(self, x: VariableOrArray) -> variable.Variable:
        y = (x - self.loc) / self.scale
        return -self._log_scale - y - F.exp(-y)

    def log_cdf(self, x: VariableOrArray) -> variable.Variable:
        return -F.exp(-(x - self.loc) / self.scale)

    def cdf(self, x: VariableOrArray) -> variable.Variable:
        return F.exp(self.log_cdf(x))

    def survival_function(self, x: VariableOrArray) -> variable.Variable:
        return -F.expm1(self.log_cdf(x))

    def icdf(self, x: VariableOrArray) -> variable.Variable:
        return self.loc - self.scale * F.log(-F.log(utils._like(x, self.loc)))

    def sample_n(self, n: int) -> variable.Variable:
        xp = backend.get_array_module(self.loc.array)
        eps = xp.random.gumbel(size=(n,) + self.batch_shape).astype(self.loc.dtype)
        return self.loc + self.scale * eps


@distribution.register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(dist1: Gumbel, dist2: Gumbel) -> variable.Variable:
    ratio = dist1.scale / dist2.scale
    return (dist2._log_scale - dist1._log_scale + _EULER * (ratio - 1)
            + F.exp((dist2.loc - dist1.loc) / dist2.scale + F.lgamma(ratio + 1))
            - 1 + (dist1.loc - dist2.loc) / dist2.scale)
