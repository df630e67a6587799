"""Products of a sparse (COO) matrix and a dense one: scipy.sparse on the CPU, a gather and a
scatter-add on a GPU."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy
from chainlite.functions._scipy import sparse as scipy_sparse

from chainlite import backend
from chainlite import function_node
from chainlite import variable
from chainlite.backends import cuda
from chainlite.functions.array import cast
from chainlite.functions.array import transpose
from chainlite.utils import sparse
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec, VariableOrArray
    from chainlite.variable import Variable


def _batched(row, col, dense):
    # Everything with a leading batch axis, so one code path serves one matrix and a batch.
    if dense.ndim == 2:
        return row[None], col[None], dense[None]
    return row, col, dense


def _sp_dense(data, row, col, shape, trans, dense):
    # op(S) @ dense, the batch as one block-diagonal sparse matrix: one scipy product.
    xp = backend.get_array_module(dense)
    if xp is not numpy:
        row, col = xp.asarray(row), xp.asarray(col)
    row, col, dense3 = _batched(row, col, dense)
    data = data.reshape(row.shape)
    nb, k, n = dense3.shape
    m = shape[1] if trans else shape[0]
    if trans:
        row, col = col, row
    valid = row >= 0
    # In the operands' promoted dtype; scipy.sparse has no float16: that runs in float32.
    out_dtype = numpy.result_type(data.dtype, dense.dtype)
    dtype = numpy.dtype(numpy.float32) if out_dtype == numpy.float16 else out_dtype
    if xp is not numpy:
        # scipy.sparse is the host's; on a GPU each entry reads its dense row, and the
        # products add up in their result rows (padding entries add zeros to row 0).
        b = xp.broadcast_to(xp.arange(nb)[:, None], row.shape)
        w = xp.where(valid, data, 0).astype(dtype, copy=False)
        picked = dense3[b, xp.where(valid, col, 0)].astype(dtype, copy=False)
        y = xp.zeros((nb, m, n), dtype)
        xp.add.at(y, (b, xp.where(valid, row, 0)), w[..., None] * picked)
        return y.astype(out_dtype, copy=False).reshape(dense.shape[:-2] + (m, n))
    b = numpy.broadcast_to(numpy.arange(nb)[:, None], row.shape)[valid]
    s = scipy_sparse.csr_matrix(
        (data[valid].astype(dtype, copy=False), (row[valid] + b * m, col[valid] + b * k)),
        shape=(nb * m, nb * k))
    y = s @ dense3.reshape(nb * k, n).astype(dtype, copy=False)
    return numpy.asarray(y).astype(out_dtype, copy=False).reshape(dense.shape[:-2] + (m, n))


# Chainer's array functions behind its sparse nodes, kept under their names for code that
# calls them. S is given as (data, row, col, shape) with ``row < 0`` marking padding; a batch
# adds a leading axis to data, row and col.

def _coo_matmul(sp_data: numpy.ndarray, sp_row: numpy.ndarray, sp_col: numpy.ndarray,
                sp_shape: tuple[int, int], sp_order: Any, dn: numpy.ndarray, transa: bool,
                transb: bool, transc: bool, dtype: DTypeSpec = None) -> numpy.ndarray:
    # op_c(op_a(S) @ op_b(dn)) as an array of ``dtype`` (default: the promoted one).
    if dtype is None:
        dtype = numpy.result_type(sp_data.dtype, dn.dtype)
    c = _sp_dense(sp_data, sp_row, sp_col, sp_shape, transa,
                  dn.swapaxes(-1, -2) if transb else dn)
    return (c.swapaxes(-1, -2) if transc else c).astype(dtype, copy=False)


def _coo_matmul_cpu(A_data: numpy.ndarray, A_row: numpy.ndarray, A_col: numpy.ndarray,
                    A_shape: tuple[int, int], B: numpy.ndarray,
                    dtype: DTypeSpec) -> numpy.ndarray:
    # A @ B for the sparse A, through scipy.sparse.
    return _sp_dense(A_data, A_row, A_col, A_shape, False, B).astype(dtype, copy=False)


def _coo_matmul_gpu(A_data: Any, A_row: Any, A_col: Any, A_shape: Any, A_order: Any, B: Any,
                    dtype: Any) -> Any:
    # A @ B for the sparse A on a GPU (Chainer's CUDA path; here the device-neutral one).
    cuda.check_cuda_available()
    return _sp_dense(A_data, A_row, A_col, A_shape, False, B).astype(dtype, copy=False)


def _cupy_coo_matmul() -> Any:
    # The CUDA kernel of _coo_matmul_gpu: needs CUDA.
    cuda.check_cuda_available()


def _coo_matmul_gradsp(a: numpy.ndarray, b: numpy.ndarray, c_row: numpy.ndarray,
                       c_col: numpy.ndarray, c_shape: tuple[int, int], transa: bool,
                       transb: bool, transc: bool, dtype: DTypeSpec) -> numpy.ndarray:
    # The entries at (c_row, c_col) of op_c(op_a(a) @ op_b(b)): the gradient of S's data.
    if dtype is None:
        dtype = numpy.result_type(a.dtype, b.dtype)
    A = a.swapaxes(-1, -2) if transa else a
    B = b.swapaxes(-1, -2) if transb else b
    C_row, C_col = (c_col, c_row) if transc else (c_row, c_col)
    return _coo_matmul_gradsp_cpu(A, B, C_row, C_col, dtype)


def _coo_matmul_gradsp_cpu(A: numpy.ndarray, B: numpy.ndarray, C_row: numpy.ndarray,
                           C_col: numpy.ndarray, dtype: DTypeSpec) -> numpy.ndarray:
    # (A @ B)[C_row, C_col], per batch entry; 0 at padding.
    C = numpy.matmul(A, B).astype(dtype, copy=False)
    xp = backend.get_array_module(C)
    row, col, C3 = _batched(xp.asarray(C_row), xp.asarray(C_col), C)
    valid = row >= 0
    b = xp.arange(row.shape[0])[:, None]
    data = numpy.where(valid, C3[b, numpy.where(valid, row, 0), numpy.where(valid, col, 0)], 0)
    return data.astype(dtype, copy=False).reshape(C_row.shape)


def _coo_matmul_gradsp_gpu(A: Any, B: Any, C_row: Any, C_col: Any, dtype: Any) -> Any:
    # (A @ B)[C_row, C_col] on a GPU (Chainer's CUDA path; here the device-neutral one).
    cuda.check_cuda_available()
    return _coo_matmul_gradsp_cpu(A, B, C_row, C_col, dtype)


def _cupy_coo_matmul_gradsp() -> Any:
    # The CUDA kernel of _coo_matmul_gradsp_gpu: needs CUDA.
    cuda.check_cuda_available()


class CooMatMul(function_node.FunctionNode):
    # y = op_c(op_a(S) @ op_b(dense)), S given by (data, row, col, shape); each op
    # transposes the last two axes when its flag is set. The fourth argument is either
    # chainlite's ``trans`` (a bool, the same as ``transa``) or Chainer's ``sp_order`` (a
    # string or None, unused here), so that Chainer's
    # ``CooMatMul(row, col, shape, order, transa=, transb=, transc=, dtype=)`` works too.
    # The result has the promoted dtype of the operands (or ``dtype``).

    def __init__(self, row: numpy.ndarray, col: numpy.ndarray, shape: tuple[int, int],
                 trans: bool = False, transa: bool = False, transb: bool = False,
                 transc: bool = False, dtype: DTypeSpec = None) -> None:
        self.row = row
        self.col = col
        self.sp_shape = shape
        self.trans = bool(trans) if isinstance(trans, (bool, numpy.bool_)) else bool(transa)
        self.transb = bool(transb)
        self.transc = bool(transc)
        self.dtype = None if dtype is None else numpy.dtype(dtype)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('sp', 'dn'))
        sp, dn = in_types
        type_check.expect(sp.dtype.kind == 'f', dn.dtype.kind == 'f', dn.ndim >= 2,
                          dn.ndim <= 3, sp.ndim == dn.ndim - 1,
                          sp.shape[-1] == self.row.shape[-1])
        inner = self.sp_shape[0] if self.trans else self.sp_shape[1]
        type_check.expect((dn.shape[-1] if self.transb else dn.shape[-2]) == inner)
        if type_check.eval(dn.ndim) == 3:
            type_check.expect(sp.shape[0] == dn.shape[0], sp.shape[0] == self.row.shape[0])

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        data, dense = inputs
        if self.transb:
            dense = dense.swapaxes(-1, -2)
        y = _sp_dense(data, self.row, self.col, self.sp_shape, self.trans, dense)
        if self.transc:
            y = y.swapaxes(-1, -2)
        if self.dtype is not None:
            y = y.astype(self.dtype, copy=False)
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        data, dense = self.get_retained_inputs()
        gy, = grad_outputs
        if self.transc:
            gy = _swap(gy)
        dense_used = _swap(dense) if self.transb else dense
        ret = []
        if 0 in indexes:
            ga = _CooMatMulGradSP(self.row, self.col, self.sp_shape, self.trans).apply(
                (gy, dense_used))[0]
            ret.append(cast.cast_to(ga, data.dtype))
        if 1 in indexes:
            gb = CooMatMul(self.row, self.col, self.sp_shape, not self.trans).apply(
                (data, gy))[0]
            ret.append(cast.cast_to(_swap(gb) if self.transb else gb, dense.dtype))
        return tuple(ret)


class _CooMatMulGradSP(function_node.FunctionNode):
    # The gradient of S's entries: g_k = gy[p_k] . dense[q_k] over the last axis, with
    # (p, q) = (row, col), or (col, row) when S was transposed.

    def __init__(self, row, col, shape, trans):
        self.row = row
        self.col = col
        self.sp_shape = shape
        self.trans = trans

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        gy, dense = inputs
        xp = backend.get_array_module(gy)
        row, col, dense3 = _batched(xp.asarray(self.row), xp.asarray(self.col), dense)
        gy3 = gy if gy.ndim == 3 else gy[None]
        p, q = (col, row) if self.trans else (row, col)
        valid = row >= 0
        b = xp.arange(row.shape[0])[:, None]
        # Padding entries read row 0 and are zeroed afterwards.
        g = xp.einsum('...j,...j->...', gy3[b, xp.where(valid, p, 0)],
                      dense3[b, xp.where(valid, q, 0)])
        g = xp.where(valid, g, 0).astype(gy.dtype, copy=False)
        return g.reshape(self.row.shape),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, dense = self.get_retained_inputs()
        gg, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(cast.cast_to(CooMatMul(self.row, self.col, self.sp_shape, self.trans)
                                    .apply((gg, dense))[0], gy.dtype))
        if 1 in indexes:
            ret.append(cast.cast_to(CooMatMul(self.row, self.col, self.sp_shape,
                                              not self.trans).apply((gg, gy))[0], dense.dtype))
        return tuple(ret)


class CooMatMulGradSP(function_node.FunctionNode):
    """The gradient node of a sparse matrix's entries (Chainer's):
    ``CooMatMulGradSP(sp_row, sp_col, sp_shape, sp_order, transa, transb, transc,
    dtype).apply((a, b))`` is the entries at ``(sp_row, sp_col)`` of
    ``op_c(op_a(a) @ op_b(b))`` (each op a transpose of the last two axes when its flag is
    set), 0 where ``sp_row < 0``; ``sp_shape`` is the shape of that product's matrices before
    ``op_c``, and ``sp_order`` is a memory-order hint that does not change the result."""

    _float_inputs = True
    _arg_names = ('a', 'b')

    def __init__(self, sp_row: numpy.ndarray, sp_col: numpy.ndarray,
                 sp_shape: tuple[int, int], sp_order: Any = 'other', transa: bool = False,
                 transb: bool = False, transc: bool = False, dtype: DTypeSpec = None) -> None:
        if sp_row.shape != sp_col.shape or sp_row.ndim not in (1, 2):
            raise ValueError('CooMatMulGradSP: sp_row and sp_col must have one shape of 1 or 2 '
                             'dimensions, got %s and %s' % (sp_row.shape, sp_col.shape))
        if len(sp_shape) != 2:
            raise ValueError('CooMatMulGradSP: len(sp_shape) must be two, got %r' % (sp_shape,))
        self.sp_row, self.sp_col, self.sp_shape = sp_row, sp_col, sp_shape
        self.sp_order = sp_order
        self.transa, self.transb, self.transc = transa, transb, transc
        self.dtype = dtype

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        a, b = inputs
        return _coo_matmul_gradsp(a, b, self.sp_row, self.sp_col, self.sp_shape, self.transa,
                                  self.transb, self.transc, self.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        a, b = self.get_retained_inputs()
        g, = grad_outputs
        args = self.sp_row, self.sp_col, self.sp_shape, self.sp_order
        ret = []
        if 0 in indexes:
            ret.append(CooMatMul(*args, transa=self.transc, transb=not self.transb,
                                 transc=self.transa, dtype=a.dtype).apply((g, b))[0])
        if 1 in indexes:
            ret.append(CooMatMul(*args, transa=not self.transc, transb=self.transa,
                                 transc=not self.transb, dtype=b.dtype).apply((g, a))[0])
        return tuple(ret)


def _is_dense(x):
    # A Variable, or a NumPy or GPU array.
    return isinstance(x, variable.Variable) or variable._is_array(x)


def _swap(x):
    if x.ndim < 2:
        return x  # left to CooMatMul's type check
    return transpose.transpose(x, tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2))


def sparse_matmul(a: VariableOrArray | sparse.CooMatrix, b: VariableOrArray | sparse.CooMatrix,
                  transa: bool = False, transb: bool = False) -> Variable:
    """Product of a sparse and a dense matrix (or batches of them), either way round.

    One operand is a :class:`~chainlite.utils.sparse.CooMatrix` (see
    :func:`~chainlite.utils.sparse.to_coo`), the other a Variable or array: a matrix, or a
    batch of matrices along axis 0 when the sparse operand is a batch. The gradient flows
    to the dense operand and, if its ``requires_grad`` is set, to the sparse operand's
    ``data`` (at its stored entries only).

    Args:
        a: The left operand.
        b: The right operand.
        transa: Transpose each matrix of ``a`` first.
        transb: Transpose each matrix of ``b`` first.

    Returns:
        A dense Variable: the product, of the operands' dtype.

    Raises:
        ValueError: Unless exactly one operand is a CooMatrix.

    Example:
        >>> import numpy as np
        >>> from chainlite.utils.sparse import to_coo
        >>> import chainlite.functions as F
        >>> a = to_coo(np.array([[0.0, 2.0], [-1.0, 0.0]]))
        >>> F.sparse_matmul(a, np.array([[1.0], [3.0]])).array
        array([[ 6.],
               [-1.]])
    """
    if isinstance(a, sparse.CooMatrix) and _is_dense(b):
        b = _swap(b) if transb else b
        return CooMatMul(a.row, a.col, a.shape, transa).apply((a.data, b))[0]
    if isinstance(b, sparse.CooMatrix) and _is_dense(a):
        # op(a) @ op(b) = (op(b)^T @ op(a)^T)^T
        a = a if transa else _swap(a)
        return _swap(CooMatMul(b.row, b.col, b.shape, not transb).apply((b.data, a))[0])
    raise ValueError('sparse_matmul: one operand must be a CooMatrix and the other a '
                     'Variable or an array, got %s and %s' % (type(a).__name__,
                                                               type(b).__name__))
