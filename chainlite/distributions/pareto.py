"""The Pareto distribution."""
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


class Pareto(distribution.Distribution):
    """Pareto distribution: density ``alpha scale^alpha / x^(alpha+1)`` for ``x >= scale``.

    Samples are differentiable with respect to ``scale`` (``scale * (1 + Pareto(alpha))``).

    Args:
        scale: The minimum value (positive).
        alpha: The shape (positive).

    Example:
        >>> import numpy as np
        >>> from chainlite import distributions as D
        >>> D.Pareto(np.array(1.0), np.array(3.0)).mean.array
        array(1.5)
    """

    def __init__(self, scale: VariableOrArray, alpha: VariableOrArray) -> None:
        self.__scale = scale
        self.__alpha = alpha

    @functools.cached_property
    def scale(self) -> variable.Variable:
        """The minimum value."""
        return variable.as_variable(self.__scale)

    @functools.cached_property
    def alpha(self) -> variable.Variable:
        """The shape."""
        return variable.as_variable(self.__alpha)

    @functools.cached_property
    def _log_scale(self) -> variable.Variable:
        return F.log(self.scale)

    @functools.cached_property
    def _log_alpha(self) -> variable.Variable:
        return F.log(self.alpha)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.scale.shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {'scale': self.scale, 'alpha': self.alpha}

    @property
    def support(self) -> str:
        return '[scale, inf]'

    @functools.cached_property
    def mean(self) -> variable.Variable:
        with numpy.errstate(divide='ignore', invalid='ignore'):
            mean = self.alpha * self.scale / (self.alpha - 1)
        return utils._mask(utils._values(self.alpha) > 1, mean, numpy.inf)

    @functools.cached_property
    def variance(self) -> variable.Variable:
        with numpy.errstate(divide='ignore', invalid='ignore'):
            var = self.scale ** 2 * self.alpha / (self.alpha - 1) ** 2 / (self.alpha - 2)
        return utils._mask(utils._values(self.alpha) > 2, var, numpy.inf)

    @functools.cached_property
    def stddev(self) -> variable.Variable:
        return F.sqrt(self.variance)

    @functools.cached_property
    def entropy(self) -> variable.Variable:
        return -self._log_alpha + self._log_scale + 1 / self.alpha + 1

    def log_prob(self, x: VariableOrArray) -> variable.Variable:
        x = variable.as_variable(utils._like(x, self.alpha))
        with numpy.errstate(divide='ignore', invalid='ignore'):
            logp = self._log_alpha + self.alpha * self._log_scale - (self.alpha + 1) * F.log(x)
        return utils._mask(utils._values(x) >= utils._values(self.scale), logp, -numpy.inf)

    def cdf(self, x: VariableOrArray) -> variable.Variable:
        x = variable.as_variable(utils._like(x, self.alpha))
        cdf = -F.expm1(self.alpha * (self._log_scale - F.log(x)))
        return utils._mask(utils._values(x) >= utils._values(self.scale), cdf, 0.0)

    def icdf(self, x: VariableOrArray) -> variable.Variable:
        return self.scale * F.exp(-F.log1p(-variable.as_variable(utils._like(x, self.alpha)))
                                  / self.alpha)

    def sample_n(self, n: int) -> variable.Variable:
        alpha = utils._values(self.alpha)
        xp = backend.get_array_module(alpha)
        eps = xp.random.pareto(alpha, (n,) + self.batch_shape)
        return self.scale * (eps.astype(self.alpha.dtype) + 1)


@distribution.register_kl(Pareto, Pareto)
def _kl_pareto_pareto(dist1: Pareto, dist2: Pareto) -> variable.Variable:
    kl = (dist2.alpha * (dist1._log_scale - dist2._log_scale)
          + dist1._log_alpha - dist2._log_alpha + (dist2.alpha - dist1.alpha) / dist1.alpha)
    return utils._mask(utils._values(dist1.scale) >= utils._values(dist2.scale), kl, numpy.inf)
