"""The multivariate normal distribution, parameterized by a lower Cholesky factor."""
from __future__ import annotations

import functools
import importlib.util
import math
from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import distribution
from chainlite import function_node
from chainlite import functions as F
from chainlite import variable

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray

_ENTROPYC = 0.5 * math.log(2 * math.pi * math.e)
ENTROPYC = _ENTROPYC  # Chainer's public name
_LOGPROBC = -0.5 * math.log(2 * math.pi)
LOGPROBC = _LOGPROBC  # Chainer's public name
#: Whether the CPU computations can run: the triangular solves need SciPy.
available_cpu = importlib.util.find_spec('scipy') is not None


class TriangularInv(function_node.FunctionNode):
    """The inverse of a (batch of) triangular matrices, by triangular solves."""

    def __init__(self, lower: bool) -> None:
        self.lower = lower

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
            raise ValueError('_triangular_inv: x must be a (batch of) square matrices, got '
                             'shape %s' % (x.shape,))
        self.retain_outputs((0,))
        d = x.shape[-1]
        xp = backend.get_array_module(x)
        if xp is not numpy:
            # A GPU array: CuPy's batched inverse, kept to the triangle (cupyx's
            # solve_triangular takes one matrix at a time). float16 is inverted in float32,
            # as SciPy does on the CPU.
            if not d:
                return x.copy(),
            mask = xp.tril(xp.ones((d, d), dtype=bool))
            if not self.lower:
                mask = mask.T
            compute = numpy.promote_types(x.dtype, numpy.float32)
            inv = xp.linalg.inv(x.astype(compute, copy=False))
            return xp.where(mask, inv.astype(x.dtype, copy=False), xp.zeros((), x.dtype)),
        import scipy.linalg
        y = numpy.empty_like(x)
        if d:
            eye = numpy.eye(d, dtype=x.dtype)
            for i in numpy.ndindex(x.shape[:-2]):
                y[i] = scipy.linalg.solve_triangular(x[i], eye, lower=self.lower)
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        xp = backend.get_array_module(y.array)
        d = y.shape[-1]
        mask = xp.tril(xp.ones((d, d), dtype=bool))
        if not self.lower:
            mask = mask.T
        # d(X^-1) = -X^-1 dX X^-1, restricted to the triangle X lives in.
        yt = F.swapaxes(y, -1, -2)
        gx = -F.matmul(F.matmul(yt, gy), yt)
        return F.where(xp.broadcast_to(mask, gx.shape), gx, xp.zeros_like(gx.array)),


def _triangular_inv(x: Any, lower: bool = True) -> variable.Variable:
    return TriangularInv(lower).apply((x,))[0]


def _triangular_logdet(x: variable.Variable) -> variable.Variable:
    return F.sum(F.log(abs(F.diagonal(x, axis1=-2, axis2=-1))), axis=-1)


class MultivariateNormal(distribution.Distribution):
    """Multivariate normal distribution ``N(loc, L L^T)``; reparameterized sampling.

    Args:
        loc: The mean, shape ``batch_shape + (d,)``.
        scale_tril: The lower triangular Cholesky factor ``L`` of the covariance, shape
            ``batch_shape + (d, d)`` (keyword, required).

    Example:
        >>> import numpy as np
        >>> from chainlite import distributions as D
        >>> d = D.MultivariateNormal(np.zeros(2), scale_tril=np.eye(2))
        >>> round(float(d.log_prob(np.zeros(2)).array), 4)
        -1.8379
    """

    def __init__(self, loc: VariableOrArray, **kwargs: Any) -> None:
        scale_tril = kwargs.pop('scale_tril', None)
        if kwargs:
            raise TypeError('MultivariateNormal: unexpected keyword argument(s) %s'
                            % sorted(kwargs))
        if scale_tril is None:
            raise ValueError('MultivariateNormal: `scale_tril` must have a value.')
        self.__loc = loc
        self.__scale_tril = scale_tril

    @functools.cached_property
    def loc(self) -> variable.Variable:
        """The mean."""
        return variable.as_variable(self.__loc)

    @functools.cached_property
    def scale_tril(self) -> variable.Variable:
        """The lower Cholesky factor of the covariance."""
        return variable.as_variable(self.__scale_tril)

    @functools.cached_property
    def _logdet_scale(self) -> variable.Variable:
        return _triangular_logdet(self.scale_tril)

    @functools.cached_property
    def _scale_tril_inv(self) -> variable.Variable:
        return _triangular_inv(self.scale_tril)

    @property
    def d(self) -> int:
        """The dimension of the event."""
        return self.scale_tril.shape[-1]

    def __copy__(self) -> 'MultivariateNormal':
        return self._copy_to(MultivariateNormal(self.loc, scale_tril=self.scale_tril))

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.loc.shape[:-1]

    @property
    def event_shape(self) -> tuple[int, ...]:
        return self.loc.shape[-1:]

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {'loc': self.loc, 'scale_tril': self.scale_tril}

    @property
    def support(self) -> str:
        return 'real'

    @functools.cached_property
    def mean(self) -> variable.Variable:
        return self.loc

    @functools.cached_property
    def covariance(self) -> variable.Variable:
        return F.matmul(self.scale_tril, F.swapaxes(self.scale_tril, -1, -2))

    @functools.cached_property
    def variance(self) -> variable.Variable:
        return F.sum(self.scale_tril ** 2, axis=-1)

    @functools.cached_property
    def entropy(self) -> variable.Variable:
        return self._logdet_scale + _ENTROPYC * self.d

    def log_prob(self, x: VariableOrArray) -> variable.Variable:
        diff = x - self.loc
        inv = F.broadcast_to(self._scale_tril_inv, diff.shape + (self.d,))
        z = F.matmul(inv, F.expand_dims(diff, axis=-1))
        m = F.sum(z[..., 0] ** 2, axis=-1)
        return _LOGPROBC * self.d - self._logdet_scale - 0.5 * m

    def sample_n(self, n: int) -> variable.Variable:
        xp = backend.get_array_module(self.loc.array)
        eps = xp.random.standard_normal((n,) + self.loc.shape + (1,))
        eps = eps.astype(self.loc.dtype)
        tril = F.broadcast_to(self.scale_tril, (n,) + self.scale_tril.shape)
        return self.loc + F.matmul(tril, eps)[..., 0]


@distribution.register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(dist1: MultivariateNormal,
                                              dist2: MultivariateNormal) -> variable.Variable:
    inv2 = dist2._scale_tril_inv
    trace = F.sum(F.matmul(inv2, dist1.scale_tril) ** 2, axis=(-1, -2))
    z = F.matmul(inv2, F.expand_dims(dist1.loc - dist2.loc, axis=-1))
    mah = F.sum(z[..., 0] ** 2, axis=-1)
    return (dist2._logdet_scale - dist1._logdet_scale
            + 0.5 * trace + 0.5 * mah - 0.5 * dist1.d)
