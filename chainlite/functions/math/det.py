"""Determinant of a square matrix."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import _lazy
from chainlite import backend
from chainlite import function_node
from chainlite.functions.array import reshape
from chainlite.functions.array import transpose
from chainlite.functions.math import _square_matrix
from chainlite.functions.math import batch_inv
from chainlite.functions.math import inv

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Det(function_node.FunctionNode):

    _ndim = 2  # BatchDet takes a batch of matrices

    def check_type_forward(self, in_types: Any) -> None:
        _square_matrix.check_types(in_types, self._ndim)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        a, = inputs
        xp = backend.get_array_module(a)
        y = xp.linalg.det(_square_matrix.lapack_input(a))
        return xp.asarray(y).astype(a.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        a, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        # d det(A) / dA = det(A) A^-T (Jacobi's formula); singular A has no inverse here.
        axes = tuple(range(a.ndim - 2)) + (a.ndim - 1, a.ndim - 2)
        invert = inv.inv if a.ndim == 2 else batch_inv.batch_inv
        a_inv_t = invert(transpose.transpose(a, axes))
        return reshape.reshape(gy * y, y.shape + (1, 1)) * a_inv_t,


def det(a: VariableOrArray) -> Variable:
    """Determinant of a square matrix.

    Args:
        a: A float Variable or array of shape ``(n, n)``; float16 is computed in float32.

    Returns:
        A 0-d Variable of the same dtype. Its gradient needs the inverse of ``a``, so it
        raises ValueError for a singular matrix.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.det(np.array([[2.0, 1.0], [1.0, 3.0]])).array
        array(5.)
    """
    return Det().apply((a,))[0]


# Chainer's module also has batch_det; chainlite keeps it in its own module (which may import
# this one), imported on first use.
__getattr__, __dir__ = _lazy.attach(
    __name__, dict.fromkeys(('batch_det', 'BatchDet'), 'chainlite.functions.math.batch_det'))[:2]
