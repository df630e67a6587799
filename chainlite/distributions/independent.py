"""Reinterpreting batch dimensions of a distribution as event dimensions."""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Callable

import numpy

from chainlite import backend
from chainlite import distribution as distribution_module
from chainlite import functions as F
from chainlite import variable

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray


class Independent(distribution_module.Distribution):
    """Treats the last ``reinterpreted_batch_ndims`` batch axes of a distribution as events.

    ``log_prob`` and ``entropy`` sum over those axes (``prob`` and ``cdf`` multiply), so a
    batch of independent univariate distributions becomes one multivariate distribution.

    Args:
        distribution: The base distribution.
        reinterpreted_batch_ndims: How many trailing batch axes become event axes; by
            default all but the first.

    Example:
        >>> import numpy as np
        >>> from chainlite import distributions as D
        >>> d = D.Independent(D.Normal(np.zeros((2, 3)), np.ones((2, 3))))
        >>> d.batch_shape, d.event_shape, d.log_prob(np.zeros((2, 3))).shape
        ((2,), (3,), (2,))
    """

    def __init__(self, distribution: distribution_module.Distribution,
                 reinterpreted_batch_ndims: int | None = None) -> None:
        ndim = len(distribution.batch_shape)
        if reinterpreted_batch_ndims is None:
            reinterpreted_batch_ndims = max(0, ndim - 1)
        elif reinterpreted_batch_ndims > ndim:
            raise ValueError('Independent: reinterpreted_batch_ndims (%d) must be less than or '
                             'equal to the number of dimensions of `distribution.batch_shape` '
                             '(%d).' % (reinterpreted_batch_ndims, ndim))
        self.__distribution = distribution
        self.__ndims = reinterpreted_batch_ndims
        batch_ndim = ndim - reinterpreted_batch_ndims
        self.__batch_shape = distribution.batch_shape[:batch_ndim]
        self.__event_shape = distribution.batch_shape[batch_ndim:] + distribution.event_shape

    @property
    def distribution(self) -> distribution_module.Distribution:
        """The base distribution."""
        return self.__distribution

    @property
    def reinterpreted_batch_ndims(self) -> int:
        """How many batch axes of the base distribution are event axes here."""
        return self.__ndims

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.__batch_shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return self.__event_shape

    def _reduce(self, op: Callable[..., Any], stat: Any) -> variable.Variable:
        if self.__ndims == 0:
            return variable.as_variable(stat)
        return op(stat, axis=tuple(range(-self.__ndims, 0)))

    @property
    def params(self) -> dict[str, variable.Variable]:
        return self.distribution.params

    @property
    def support(self) -> str:
        return self.distribution.support

    @property
    def xp(self) -> Any:
        return self.distribution.xp

    @property
    def mean(self) -> variable.Variable:
        return self.distribution.mean

    @property
    def mode(self) -> variable.Variable:
        return self.distribution.mode

    @property
    def variance(self) -> variable.Variable:
        return self.distribution.variance

    @property
    def stddev(self) -> variable.Variable:
        return self.distribution.stddev

    @functools.cached_property
    def covariance(self) -> variable.Variable:
        """The block-diagonal covariance of the reinterpreted axes."""
        base = self.distribution
        n = int(numpy.prod(base.batch_shape[len(self.batch_shape):], dtype=int))
        dim = int(numpy.prod(base.event_shape, dtype=int))
        if base.event_shape:
            cov = F.reshape(base.covariance, self.batch_shape + (n, dim, dim))
        else:
            cov = F.reshape(base.variance, self.batch_shape + (n, 1, 1))
        cov = F.broadcast_to(F.expand_dims(cov, -2), self.batch_shape + (n, dim, n, dim))
        xp = backend.get_array_module(cov.array)
        eye = xp.eye(n, dtype=cov.dtype).reshape(n, 1, n, 1)
        return F.reshape(cov * eye, self.batch_shape + (n * dim, n * dim))

    @property
    def entropy(self) -> variable.Variable:
        return self._reduce(F.sum, self.distribution.entropy)

    def log_prob(self, x: VariableOrArray) -> variable.Variable:
        return self._reduce(F.sum, self.distribution.log_prob(x))

    def prob(self, x: VariableOrArray) -> variable.Variable:
        return self._reduce(F.prod, self.distribution.prob(x))

    def cdf(self, x: VariableOrArray) -> variable.Variable:
        return self._reduce(F.prod, self.distribution.cdf(x))

    def log_cdf(self, x: VariableOrArray) -> variable.Variable:
        return self._reduce(F.sum, self.distribution.log_cdf(x))

    def survival_function(self, x: VariableOrArray) -> variable.Variable:
        return self._reduce(F.prod, self.distribution.survival_function(x))

    def log_survival_function(self, x: VariableOrArray) -> variable.Variable:
        return self._reduce(F.sum, self.distribution.log_survival_function(x))

    def perplexity(self, x: VariableOrArray) -> variable.Variable:
        return self._reduce(F.prod, self.distribution.perplexity(x))

    def icdf(self, x: VariableOrArray) -> variable.Variable:
        raise RuntimeError('Independent.icdf: the cumulative distribution function of a '
                           'multivariate variable is not invertible.')

    def sample_n(self, n: int) -> variable.Variable:
        return self.distribution.sample_n(n)


@distribution_module.register_kl(Independent, Independent)
def _kl_independent_independent(dist1: Independent, dist2: Independent) -> variable.Variable:
    p, q = dist1.distribution, dist2.distribution
    if dist1.event_shape != dist2.event_shape:
        raise ValueError('kl_divergence: the event shapes of the Independent distributions '
                         'differ: %s and %s' % (dist1.event_shape, dist2.event_shape))
    if p.event_shape != q.event_shape:
        raise ValueError('kl_divergence: the base distributions of the Independent '
                         'distributions have different event shapes: %s and %s'
                         % (p.event_shape, q.event_shape))
    kl = distribution_module.kl_divergence(p, q)
    n_axes = len(dist1.event_shape) - len(p.event_shape)
    if n_axes == 0:
        return kl
    return F.sum(kl, axis=tuple(range(-n_axes, 0)))
