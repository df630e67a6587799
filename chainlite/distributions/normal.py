"""The normal (Gaussian) distribution."""
from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any, Optional


from chainlite import backend
from chainlite import distribution
from chainlite import functions as F
from chainlite import variable
from chainlite.distributions import utils

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray

_ENTROPYC = 0.5 * math.log(2 * math.pi * math.e)
ENTROPYC = _ENTROPYC  # Chainer's public name
_LOGPROBC = -0.5 * math.log(2 * math.pi)
LOGPROBC = _LOGPROBC  # Chainer's public name
#: The density's factor 1 / sqrt(2 pi).
PROBC = 1. / (2 * math.pi) ** 0.5


class Normal(distribution.Distribution):
    """Normal distribution ``N(loc, scale ** 2)``, reparameterized sampling.

    Args:
        loc: The mean (array or Variable).
        scale: The standard deviation. Give either ``scale`` or ``log_scale``.
        log_scale: The logarithm of the standard deviation (keyword only).

    Example:
        >>> import numpy as np
        >>> from chainlite import distributions as D
        >>> d = D.Normal(np.array([0.0]), log_scale=np.array([0.0]))
        >>> d.log_prob(np.array([0.0])).array.round(4)
        array([-0.9189])
    """

    def __init__(self, loc: VariableOrArray, scale: Optional[VariableOrArray] = None,
                 **kwargs: Any) -> None:
        log_scale = kwargs.pop('log_scale', None)
        if kwargs:
            raise TypeError('Normal: unexpected keyword argument(s) %s' % sorted(kwargs))
        if (scale is None) == (log_scale is None):
            raise ValueError('Normal: either `scale` or `log_scale` (not both) must have a '
                             'value.')
        self.__loc = loc
        self.__scale = scale
        self.__log_scale = log_scale

    @functools.cached_property
    def loc(self) -> variable.Variable:
        """The mean."""
        return variable.as_variable(self.__loc)

    @functools.cached_property
    def scale(self) -> variable.Variable:
        """The standard deviation."""
        if self.__scale is not None:
            return variable.as_variable(self.__scale)
        return F.exp(self.log_scale)

    @functools.cached_property
    def log_scale(self) -> variable.Variable:
        """The logarithm of the standard deviation."""
        if self.__log_scale is not None:
            return variable.as_variable(self.__log_scale)
        return F.log(self.scale)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.loc.shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {'loc': self.loc, 'scale': self.scale}

    @property
    def support(self) -> str:
        return 'real'

    @functools.cached_property
    def mean(self) -> variable.Variable:
        return self.loc

    @functools.cached_property
    def mode(self) -> variable.Variable:
        return self.loc

    @functools.cached_property
    def stddev(self) -> variable.Variable:
        return self.scale

    @functools.cached_property
    def variance(self) -> variable.Variable:
        return self.scale ** 2

    @functools.cached_property
    def entropy(self) -> variable.Variable:
        return self.log_scale + _ENTROPYC

    def _z(self, x: VariableOrArray) -> variable.Variable:
        return (x - self.loc) / self.scale

    def log_prob(self, x: VariableOrArray) -> variable.Variable:
        return _LOGPROBC - self.log_scale - 0.5 * self._z(x) ** 2

    def prob(self, x: VariableOrArray) -> variable.Variable:
        return F.exp(self.log_prob(x))

    def cdf(self, x: VariableOrArray) -> variable.Variable:
        return F.ndtr(self._z(x))

    def log_cdf(self, x: VariableOrArray) -> variable.Variable:
        return F.log_ndtr(self._z(x))

    def survival_function(self, x: VariableOrArray) -> variable.Variable:
        return F.ndtr(-self._z(x))

    def log_survival_function(self, x: VariableOrArray) -> variable.Variable:
        return F.log_ndtr(-self._z(x))

    def icdf(self, x: VariableOrArray) -> variable.Variable:
        return self.loc + self.scale * F.ndtri(utils._like(x, self.loc))

    def sample_n(self, n: int) -> variable.Variable:
        dtype = self.loc.dtype
        xp = backend.get_array_module(self.loc.array)
        eps = xp.random.standard_normal((n,) + self.loc.shape).astype(dtype)
        return self.loc + self.scale * eps


@distribution.register_kl(Normal, Normal)
def _kl_normal_normal(dist1: Normal, dist2: Normal) -> variable.Variable:
    return (dist2.log_scale - dist1.log_scale
            + 0.5 * (dist1.variance + (dist1.loc - dist2.loc) ** 2) / dist2.variance - 0.5)
