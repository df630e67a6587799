"""Inverse of a square matrix."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import _lazy
from chainlite import backend
from chainlite import configuration
from chainlite import function_node
from chainlite.backends import cuda
from chainlite.functions.math import _square_matrix
from chainlite.functions.math import matmul

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def _inv_gpu(b: Any) -> Any:
    # Chainer's batched inverse through cuBLAS: needs CUDA.
    cuda.check_cuda_available()


class Inv(function_node.FunctionNode):

    _ndim = 2  # BatchInv takes a batch of matrices

    def check_type_forward(self, in_types: Any) -> None:
        _square_matrix.check_types(in_types, self._ndim)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_outputs((0,))
        a, = inputs
        try:
            y = numpy.linalg.inv(_square_matrix.lapack_input(a))
        except numpy.linalg.LinAlgError:
            raise ValueError('%s: input has singular matrices' % self.label) from None
        if a.__class__ is not numpy.ndarray and configuration.is_debug() and not bool(
                backend.get_array_module(y).isfinite(y).all()):
            # As Chainer on a GPU: the singularity check waits for the device, so it runs in
            # debug mode only (CuPy's inverse of a singular matrix holds infinities or NaNs
            # rather than raising, unless asked to).
            raise ValueError('%s: input has singular matrices' % self.label)
        return y.astype(a.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        # d(A^-1) = -A^-1 dA A^-1, so gA = -A^-T gy A^-T.
        return -matmul.matmul(matmul.matmul(y, gy, transa=True), y, transb=True),


def inv(a: VariableOrArray) -> Variable:
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


# Chainer's module also has batch_inv; chainlite keeps it in its own module (which may import
# this one), imported on first use.
__getattr__, __dir__ = _lazy.attach(
    __name__, dict.fromkeys(('batch_inv', 'BatchInv'), 'chainlite.functions.math.batch_inv'))[:2]
