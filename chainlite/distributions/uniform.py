"""The continuous uniform distribution."""
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


class Uniform(distribution.Distribution):
    """Uniform distribution on ``[low, high]``; reparameterized sampling.

    Args:
        low: The lower bound (keyword). Give ``low`` and ``high``, or ``loc`` and
            ``scale``.
        high: The upper bound (keyword).
        loc: The lower bound, as a location (keyword).
        scale: The width ``high - low`` (keyword).

    Example:
        >>> import numpy as np
        >>> from chainlite import distributions as D
        >>> d = D.Uniform(low=np.array(1.0), high=np.array(3.0))
        >>> float(d.cdf(np.array(2.5)).array), round(float(d.variance.array), 4)
        (0.75, 0.3333)
    """

    def __init__(self, **kwargs: Any) -> None:
        low, high = kwargs.pop('low', None), kwargs.pop('high', None)
        loc, scale = kwargs.pop('loc', None), kwargs.pop('scale', None)
        if kwargs:
            raise TypeError('Uniform: unexpected keyword argument(s) %s' % sorted(kwargs))
        self._use_low_high = low is not None and high is not None
        self._use_loc_scale = loc is not None and scale is not None
        if self._use_low_high == self._use_loc_scale:
            raise ValueError('Uniform: either `low, high` or `loc, scale` (not both) must '
                             'have a value.')
        self.__low, self.__high = low, high
        self.__loc, self.__scale = loc, scale

    @functools.cached_property
    def low(self) -> variable.Variable:
        """The lower bound."""
        if self._use_low_high:
            return variable.as_variable(self.__low)
        return self.loc

    @functools.cached_property
    def high(self) -> variable.Variable:
        """The upper bound."""
        if self._use_low_high:
            return variable.as_variable(self.__high)
        return self.loc + self.scale

    @functools.cached_property
    def loc(self) -> variable.Variable:
        """The lower bound, as a location."""
        if self._use_loc_scale:
            return variable.as_variable(self.__loc)
        return self.low

    @functools.cached_property
    def scale(self) -> variable.Variable:
        """The width."""
        if self._use_loc_scale:
            return variable.as_variable(self.__scale)
        return self.high - self.low

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.low.shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, variable.Variable]:
        if self._use_low_high:
            return {'low': self.low, 'high': self.high}
        return {'loc': self.loc, 'scale': self.scale}

    @property
    def support(self) -> str:
        return '[low, high]'

    @functools.cached_property
    def mean(self) -> variable.Variable:
        return (self.high + self.low) / 2

    @functools.cached_property
    def variance(self) -> variable.Variable:
        return self.scale ** 2 / 12

    @functools.cached_property
    def stddev(self) -> variable.Variable:
        return F.sqrt(self.variance)

    @functools.cached_property
    def entropy(self) -> variable.Variable:
        return F.log(self.scale)

    def log_prob(self, x: VariableOrArray) -> variable.Variable:
        x = variable.as_variable(utils._like(x, self.low))
        logp = F.broadcast_to(-F.log(self.scale), x.shape)
        values = utils._values(x)
        inside = (values >= utils._values(self.low)) & (values <= utils._values(self.high))
        return utils._mask(inside, logp, -numpy.inf)

    def cdf(self, x: VariableOrArray) -> variable.Variable:
        return F.clip((x - self.loc) / self.scale, 0.0, 1.0)

    def icdf(self, x: VariableOrArray) -> variable.Variable:
        return x * self.scale + self.loc

    def sample_n(self, n: int) -> variable.Variable:
        xp = backend.get_array_module(self.low.array)
        eps = xp.random.uniform(0, 1, (n,) + self.low.shape).astype(self.low.dtype)
        return self.icdf(eps)


@distribution.register_kl(Uniform, Uniform)
def _kl_uniform_uniform(dist1: Uniform, dist2: Uniform) -> variable.Variable:
    outside = ((utils._values(dist1.high) > utils._values(dist2.high))
               | (utils._values(dist1.low) < utils._values(dist2.low)))
    kl = F.log(dist2.high - dist2.low) - F.log(dist1.high - dist1.low)
    return utils._mask(~outside, kl, numpy.inf)
