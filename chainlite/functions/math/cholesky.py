"""Cholesky decomposition of a symmetric positive-definite matrix."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions.array import transpose
from chainlite.functions.math import inv
from chainlite.functions.math import matmul
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Cholesky(function_node.FunctionNode):

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('a',))
        a, = in_types
        type_check.expect(a.dtype.kind == 'f', a.ndim == 2)
        type_check.expect(a.shape[0] == a.shape[1])

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_outputs((0,))
        a, = inputs
        # LAPACK has no half precision: float16 is decomposed in float32.
        a32 = a.astype(numpy.float32) if a.dtype == numpy.float16 else a
        try:
            y = numpy.linalg.cholesky(a32)
        except numpy.linalg.LinAlgError:
            raise ValueError('%s: the matrix is not positive definite' % self.label) from None
        return y.astype(a.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        xp = backend.get_array_module(y.array)
        n = y.shape[0]
        # The lower triangle with half the diagonal: only the lower triangle of a is read,
        # so the gradient lives there too (each off-diagonal entry stands for two).
        mask = (xp.tri(n) - 0.5 * xp.eye(n)).astype(y.dtype)
        y_inv = inv.inv(y)
        phi = matmul.matmul(y, gy, transa=True) * mask
        s = matmul.matmul(matmul.matmul(y_inv, phi, transa=True), y_inv)
        return (s + transpose.transpose(s)) * mask,


def cholesky(a: VariableOrArray) -> Variable:
    """Cholesky decomposition: the lower-triangular ``L`` with ``L @ L.T == a``.

    Only the lower triangle of ``a`` is read (as :func:`numpy.linalg.cholesky` does), so the
    gradient with respect to the strict upper triangle is zero.

    Args:
        a: A float Variable or array of shape ``(n, n)``, symmetric positive definite;
            float16 is computed in float32.

    Returns:
        A Variable of the same shape and dtype.

    Raises:
        ValueError: If ``a`` is not positive definite.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.cholesky(np.array([[4.0, 2.0], [2.0, 5.0]])).array
        array([[2., 0.],
               [1., 2.]])
    """
    return Cholesky().apply((a,))[0]
