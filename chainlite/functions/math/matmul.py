"""Matrix product with optional transposes and batch broadcasting."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import _blas
from chainlite import _lazy
from chainlite import function_node
from chainlite.backends import cuda
from chainlite.functions.array import cast
from chainlite.functions.array import reshape
from chainlite.functions.array import sum_to
from chainlite.functions.array import swapaxes
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec, VariableOrArray
    from chainlite.variable import Variable


def compute_dtype(*arrays: numpy.ndarray) -> numpy.dtype:
    """The dtype to compute a product of ``arrays`` in: float32 where it would be float16.

    NumPy multiplies float16 matrices element by element without BLAS, a hundred times
    slower than float32; products of half-precision operands are therefore computed in
    float32 and the result is cast back (Chainer's CPU results stay float16 too).
    """
    dtype = numpy.result_type(*arrays)
    return numpy.dtype(numpy.float32) if dtype == numpy.float16 else dtype


def as_dtype(a: numpy.ndarray, dtype: DTypeSpec) -> numpy.ndarray:
    """``a`` itself when it has ``dtype`` already, else a copy cast to it."""
    return a if a.dtype == dtype else a.astype(dtype)


def matmul_arrays(a: numpy.ndarray, b: numpy.ndarray) -> numpy.ndarray:
    """``numpy.matmul(a, b)`` on arrays, float16 operands multiplied in float32.

    The product has NumPy's promoted dtype, float16 included.
    """
    if a.dtype != numpy.float16 and b.dtype != numpy.float16:
        return _blas.matmul(a, b)
    dtype = compute_dtype(a, b)
    y = _blas.matmul(as_dtype(a, dtype), as_dtype(b, dtype))
    return as_dtype(y, numpy.result_type(a, b))


def _t(a, trans):
    return a.swapaxes(-1, -2) if trans else a


# Chainer's array helpers for its matmul kernels, kept under their names for code that calls
# them.

def _mat_ptrs(a: Any) -> Any:
    # The device pointers of a batch of CuPy matrices, for cuBLAS: needs CUDA.
    cuda.check_cuda_available()


def _as_batch_mat(x: numpy.ndarray) -> numpy.ndarray:
    # (B, M, ...) as B matrices of M rows; a 2-D (B, M) is B columns.
    return x.reshape(len(x), x.shape[1], -1)


def _get_ld(a: numpy.ndarray) -> tuple[Any, int]:
    # Whether the matrices of ``a`` are transposed in memory (the axis with the smaller
    # stride: 0 for row-major), and their BLAS leading dimension.
    strides = a.strides[-2:]
    trans = numpy.argmin(strides)
    return trans, int(max(a.shape[trans - 2], max(strides) // a.itemsize))


def _matmul(a: numpy.ndarray, b: numpy.ndarray, transa: bool = False, transb: bool = False,
            transout: bool = False) -> numpy.ndarray:
    # The product of arrays with optional transposes (of the result too: (a b)^T = b^T a^T);
    # a 1-D operand is not transposed.
    if transout:
        a, b, transa, transb = b, a, not transb, not transa
    return numpy.matmul(_t(a, transa and a.ndim != 1), _t(b, transb and b.ndim != 1))


def _check_ndim(in_type: Any, lower: int = 1, upper: int = 2) -> None:
    # type_check: ``lower <= ndim <= upper``.
    type_check.expect(in_type.ndim >= lower, in_type.ndim <= upper)


def _get_check_index(trans: bool, right: bool, row_idx: int = 0, col_idx: int = 1) -> int:
    # The axis whose length must match the other operand's: the columns of a left operand,
    # the rows of a right one, swapped when transposed.
    return row_idx if trans ^ right else col_idx


def _get_size(typ: Any, index: int) -> Any:
    # The length of axis ``index`` of a batch operand; a 2-D batch has one column.
    if index == 2 and type_check.eval(typ.ndim) == 2:
        return 1
    return typ.shape[index]


def _batch_matmul(a: numpy.ndarray, b: numpy.ndarray, transa: bool, transb: bool,
                  transout: bool) -> numpy.ndarray:
    # _matmul of two batches of matrices, (B, M, ...) read as B matrices of M rows.
    return _matmul(_as_batch_mat(a), _as_batch_mat(b), transa, transb, transout)


class MatMul(function_node.FunctionNode):
    # Chainer's signature: transc transposes the product, dtype casts it.

    def __init__(self, transa: bool = False, transb: bool = False, transc: bool = False,
                 dtype: DTypeSpec = None) -> None:
        self.transa = transa
        self.transb = transb
        self.transc = transc
        self.dtype = dtype

    @property
    def label(self) -> str:
        return 'MatMul'

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('a', 'b'))
        a, b = in_types
        # Mixed float dtypes are accepted, as in Chainer: the product has the promoted dtype.
        type_check.expect(a.dtype.kind == 'f', b.dtype.kind == 'f', a.ndim >= 2, b.ndim >= 2)
        a_inner = a.shape[-2] if self.transa else a.shape[-1]
        b_inner = b.shape[-1] if self.transb else b.shape[-2]
        type_check.expect(a_inner == b_inner)
        type_check.expect_broadcast_shapes(a.shape[:-2], b.shape[:-2])

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        a, b = inputs
        y = matmul_arrays(_t(a, self.transa), _t(b, self.transb))
        if self.transc or self.dtype is not None:
            y = _t(y, self.transc)
            if self.dtype is not None:
                y = y.astype(self.dtype, copy=False)
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        a, b = self.get_retained_inputs()
        gy, = grad_outputs
        if self.transc:
            gy = _swap(gy)
        ta, tb = self.transa, self.transb
        ret = []
        if 0 in indexes:
            ga = matmul(b, gy, transa=tb, transb=True) if ta else matmul(gy, b, transb=not tb)
            ret.append(cast.cast_to(sum_to.sum_to(ga, in_nodes[0].shape), a.dtype))
        if 1 in indexes:
            gb = matmul(gy, a, transa=True, transb=ta) if tb else matmul(a, gy, transa=not ta)
            ret.append(cast.cast_to(sum_to.sum_to(gb, in_nodes[1].shape), b.dtype))
        return tuple(ret)


def _swap(x):
    # The last two axes of a Variable swapped (differentiably).
    return swapaxes.swapaxes(x, -1, -2)


def matmul(a: VariableOrArray, b: VariableOrArray, transa: bool = False,
           transb: bool = False) -> Variable:
    """Matrix product ``a @ b`` (NumPy's matmul semantics, batch dimensions broadcast).

    Args:
        a: A float Variable or array with ``ndim >= 1``.
        b: A float Variable or array with ``ndim >= 1``; with another float dtype than
            ``a``, the product has the promoted dtype and each gradient its input's.
        transa: Transpose the last two axes of ``a`` first (ignored when ``a`` is 1-D).
        transb: Transpose the last two axes of ``b`` first (ignored when ``b`` is 1-D).

    Returns:
        The product as a Variable. A 1-D operand is treated as a row (``a``) or column
        (``b``) vector and its axis is dropped from the result, as in NumPy.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> F.matmul(np.eye(2), np.array([[1.0], [2.0]])).array
        array([[1.],
               [2.]])
    """
    a_1d = getattr(a, 'ndim', 2) == 1
    b_1d = getattr(b, 'ndim', 2) == 1
    if a_1d:
        a = reshape.reshape(a, (1, a.shape[0]))
        transa = False
    if b_1d:
        b = reshape.reshape(b, (b.shape[0], 1))
        transb = False
    y, = MatMul(transa, transb).apply((a, b))
    if a_1d or b_1d:
        shape = y.shape[:-2] + ((y.shape[-2],) if not a_1d else ()) + (
            (y.shape[-1],) if not b_1d else ())
        y = reshape.reshape(y, shape)
    return y


# Chainer's module also has batch_matmul and its nodes; chainlite keeps them in their own
# module (which imports this one), imported on first use.
__getattr__, __dir__ = _lazy.attach(__name__, dict.fromkeys(
    ('batch_matmul', 'BatchMatMul', 'BatchMatMulGrad'),
    'chainlite.functions.math.batch_matmul'))[:2]
