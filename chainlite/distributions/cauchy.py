"""The Cauchy distribution."""
from __future__ import annotations

import functools
import math
import warnings
from typing import TYPE_CHECKING

import numpy

from chainlite import backend
from chainlite import functions as F
from chainlite import variable
from chainlite.distributions import utils

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray


class Cauchy(utils.LocScale):
    """Cauchy distribution: density ``1 / (pi scale (1 + ((x - loc) / scale)^2))``.

    Its mean and variance are undefined: reading them warns and gives NaN, as in Chainer.
    Sampling is reparameterized.

    Args:
        loc: The location (median).
        scale: The scale (half width at half maximum), positive.

    Example:
        >>> import numpy as np
        >>> from chainlite import distributions as D
        >>> D.Cauchy(np.array(0.0), np.array(1.0)).cdf(np.array(1.0)).array
        array(0.75)
    """

    def _undefined_moment(self, name: str) -> variable.Variable:
        warnings.warn('%s of the Cauchy distribution is undefined.' % name, RuntimeWarning)
        xp = backend.get_array_module(self.loc.array)
        return variable.Variable(xp.full_like(self.loc.array, numpy.nan))

    @property
    def mean(self) -> variable.Variable:
        return self._undefined_moment('Mean')

    @property
    def variance(self) -> variable.Variable:
        return self._undefined_moment('Variance')

    @functools.cached_property
    def mode(self) -> variable.Variable:
        return self.loc

    @functools.cached_property
    def entropy(self) -> variable.Variable:
        return F.log(4 * math.pi * self.scale)

    def log_prob(self, x: VariableOrArray) -> variable.Variable:
        return (-math.log(math.pi) + F.log(self.scale)
                - F.log((x - self.loc) ** 2 + self.scale ** 2))

    def cdf(self, x: VariableOrArray) -> variable.Variable:
        return F.arctan((x - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, x: VariableOrArray) -> variable.Variable:
        return self.loc + self.scale * F.tan((utils._like(x, self.loc) - 0.5) * math.pi)

    def sample_n(self, n: int) -> variable.Variable:
        xp = backend.get_array_module(self.loc.array)
        eps = xp.random.standard_cauchy((n,) + self.loc.shape).astype(self.loc.dtype)
        return self.loc + self.scale * eps
