"""Inverse of a square matrix."""
import numpy

from chainlite import function_node
from chainlite.functions.math import matmul
from chainlite.utils import type_check


class Inv(function_node.FunctionNode):

    _ndim = 2  # BatchInv takes a batch of matrices

    def check_type_forward(self, in_types):
        type_check._argname(in_types, ('a',))
        a, = in_types
        type_check.expect(a.dtype.kind == 'f', a.ndim == self._ndim)
        type_check.expect(a.shape[-1] == a.shape[-2])

    def forward(self, inputs):
        self.retain_outputs((0,))
        a, = inputs
        # LAPACK has no half precision: float16 is inverted in float32.
        a32 = a.astype(numpy.float32) if a.dtype == numpy.float16 else a
        try:
            y = numpy.linalg.inv(a32)
        except numpy.linalg.LinAlgError:
            raise ValueError('%s: input has singular matrices' % self.label) from None
        return y.astype(a.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        # d(A^-1) = -A^-1 dA A^-1, so gA = -A^-T gy A^-T.
        return -matmul.matmul(matmul.matmul(y, gy, transa=True), y, transb=True),


def inv(a):
    """Inverse of a square matrix.

    Args:
        a: A float Variable or array of shape ``(n, n)``; float16 is computed in float32.

    Returns:
        A Variable of the same shape and dtype.

    Raises:
        ValueError: If the matrix is singular.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.inv(np.array([[2.0, 0.0], [0.0, 4.0]])).array
        array([[0.5 , 0.  ],
               [0.  , 0.25]])
    """
    return Inv().apply((a,))[0]
