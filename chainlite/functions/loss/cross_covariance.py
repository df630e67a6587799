"""Cross-covariance penalty between two batches of features."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions.math import matmul
from chainlite.functions.math import mean
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class CrossCovariance(function_node.FunctionNode):

    def __init__(self, reduce: str = 'half_squared_sum') -> None:
        if reduce not in ('half_squared_sum', 'no'):
            raise ValueError("cross_covariance: reduce must be 'half_squared_sum' or 'no', "
                             "got %r" % (reduce,))
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('y', 'z'))
        y, z = in_types
        type_check.expect(y.dtype.kind == 'f', y.dtype == z.dtype, y.ndim == 2, z.ndim == 2,
                          y.shape[0] == z.shape[0])

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        y, z = inputs
        self.retain_inputs((0, 1))
        yc = y - y.mean(axis=0, keepdims=True)
        zc = z - z.mean(axis=0, keepdims=True)
        cov = (yc.T @ zc) / y.dtype.type(len(y))
        if self.reduce == 'no':
            return cov,
        xp = backend.get_array_module(y)
        return xp.asarray(xp.vdot(cov, cov) * y.dtype.type(0.5), y.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        y, z = self.get_retained_inputs()
        g, = grad_outputs
        n = len(y)
        yc = y - mean.mean(y, axis=0, keepdims=True)
        zc = z - mean.mean(z, axis=0, keepdims=True)
        if self.reduce == 'no':
            # d cov / d y_c = z_c g^T / n; centering is a projection that z_c already obeys.
            gcov = g / n
        else:
            gcov = matmul.matmul(yc, zc, transa=True) * (g / n / n)
        ret = []
        if 0 in indexes:
            ret.append(matmul.matmul(zc, gcov, transb=True))
        if 1 in indexes:
            ret.append(matmul.matmul(yc, gcov))
        return tuple(ret)


def cross_covariance(y: VariableOrArray, z: VariableOrArray,
                     reduce: str = 'half_squared_sum') -> Variable:
    """The cross-covariance of two batches of features, or half its squared Frobenius norm.

    With ``y`` of shape ``(n, M)`` and ``z`` of shape ``(n, N)``, the cross-covariance is
    ``C = (y - mean(y))^T (z - mean(z)) / n`` (means over the batch axis). The penalty
    ``0.5 * sum(C ** 2)`` pushes the two sets of features to be uncorrelated (Cheung et al.,
    2015, https://arxiv.org/abs/1412.6583).

    Args:
        y: A float Variable or array of shape ``(n, M)``.
        z: A Variable or array of shape ``(n, N)`` and ``y``'s dtype.
        reduce (str): ``'half_squared_sum'`` (a scalar) or ``'no'`` (the ``(M, N)`` matrix
            ``C``).

    Returns:
        A Variable of ``y``'s dtype: a scalar or the ``(M, N)`` cross-covariance.

    Raises:
        ValueError: If ``reduce`` is neither of the two values.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> y = np.array([[1.0], [3.0]])
        >>> z = np.array([[0.0, 2.0], [4.0, 2.0]])
        >>> F.cross_covariance(y, z, reduce='no').array
        array([[2., 0.]])
        >>> F.cross_covariance(y, z).array
        array(2.)
    """
    return CrossCovariance(reduce).apply((y, z))[0]
