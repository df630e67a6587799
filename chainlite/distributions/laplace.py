"""The Laplace (double exponential) distribution."""
from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import distribution
from chainlite import function_node
from chainlite import functions as F
from chainlite import variable
from chainlite.distributions import utils

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray


class LaplaceCDF(function_node.FunctionNode):
    """The standard Laplace cdf ``0.5 - 0.5 sign(x) expm1(-|x|)``."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        self.retain_inputs((0,))
        return xp.asarray(0.5 - 0.5 * xp.sign(x) * xp.expm1(-xp.abs(x)), dtype=x.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        # The density 0.5 exp(-|x|), written with differentiable functions.
        return gy * (0.5 * F.exp(-abs(x))),


class LaplaceICDF(function_node.FunctionNode):
    """The standard Laplace quantile function ``-sign(x - 0.5) log1p(-|2x - 1|)``."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        self.retain_inputs((0,))
        h = 1 - 2 * x
        with numpy.errstate(divide='ignore'):
            return xp.asarray(xp.sign(h) * xp.log1p(-xp.abs(h)), dtype=x.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return gy / (0.5 - abs(x - 0.5)),


def _laplace_cdf(x: Any) -> variable.Variable:
    return LaplaceCDF().apply((x,))[0]


def _laplace_icdf(x: Any) -> variable.Variable:
    return LaplaceICDF().apply((x,))[0]


class Laplace(utils.LocScale):
    """Laplace distribution: density ``exp(-|x - loc| / scale) / (2 scale)``.

    Sampling is reparameterized.

    Args:
        loc: The location (mean, median and mode).
        scale: The scale (positive).

    Example:
        >>> import numpy as np
        >>> from chainlite import distributions as D
        >>> D.Laplace(np.array(0.0), np.array(1.0)).cdf(np.array(0.0)).array
        array(0.5)
    """

    @functools.cached_property
    def mean(self) -> variable.Variable:
        return self.loc

    @functools.cached_property
    def mode(self) -> variable.Variable:
        return self.loc

    @functools.cached_property
    def variance(self) -> variable.Variable:
        return 2 * self.scale ** 2

    @functools.cached_property
    def stddev(self) -> variable.Variable:
        return math.sqrt(2) * self.scale

    @functools.cached_property
    def entropy(self) -> variable.Variable:
        return 1 + F.log(2 * self.scale)

    def log_prob(self, x: VariableOrArray) -> variable.Variable:
        return -F.log(2 * self.scale) - abs(x - self.loc) / self.scale

    def prob(self, x: VariableOrArray) -> variable.Variable:
        return 0.5 / self.scale * F.exp(-abs(x - self.loc) / self.scale)

    def cdf(self, x: VariableOrArray) -> variable.Variable:
        return _laplace_cdf((x - self.loc) / self.scale)

    def icdf(self, x: VariableOrArray) -> variable.Variable:
        return self.loc + self.scale * _laplace_icdf(utils._like(x, self.loc))

    def sample_n(self, n: int) -> variable.Variable:
        xp = backend.get_array_module(self.loc.array)
        eps = xp.random.laplace(size=(n,) + self.loc.shape).astype(self.loc.dtype)
        return self.loc + self.scale * eps


@distribution.register_kl(Laplace, Laplace)
def _kl_laplace_laplace(dist1: Laplace, dist2: Laplace) -> variable.Variable:
    diff = abs(dist1.loc - dist2.loc)
    return (F.log(dist2.scale) - F.log(dist1.scale) + diff / dist2.scale
            + dist1.scale / dist2.scale * F.exp(-diff / dist1.scale) - 1)
