"""Products of a sparse (COO) matrix and a dense one, computed with scipy.sparse."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy
from chainlite.functions._scipy import sparse as scipy_sparse

from chainlite import backend
from chainlite import function_node
from chainlite import variable
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
    row, col, dense3 = _batched(row, col, dense)
    data = data.reshape(row.shape)
    nb, k, n = dense3.shape
    m = shape[1] if trans else shape[0]
    if trans:
        row, col = col, row
    valid = row >= 0
    b = numpy.broadcast_to(numpy.arange(nb)[:, None], row.shape)[valid]
    # In the operands' promoted dtype; scipy.sparse has no float16: that runs in float32.
    dtype = numpy.result_type(data.dtype, dense.dtype)
    if dtype == numpy.float16:
        dtype = numpy.dtype(numpy.float32)
    s = scipy_sparse.csr_matrix(
        (data[valid].astype(dtype, copy=False), (row[valid] + b * m, col[valid] + b * k)),
        shape=(nb * m, nb * k))
    y = s @ dense3.reshape(nb * k, n).astype(dtype, copy=False)
    out_dtype = numpy.result_type(data.dtype, dense.dtype)
    return numpy.asarray(y).astype(out_dtype, copy=False).reshape(dense.shape[:-2] + (m, n))


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
        row, col, dense3 = _batched(self.row, self.col, dense)
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
    dense_types = (variable.Variable, numpy.ndarray)
    if isinstance(a, sparse.CooMatrix) and isinstance(b, dense_types):
        b = _swap(b) if transb else b
        return CooMatMul(a.row, a.col, a.shape, transa).apply((a.data, b))[0]
    if isinstance(b, sparse.CooMatrix) and isinstance(a, dense_types):
        # op(a) @ op(b) = (op(b)^T @ op(a)^T)^T
        a = a if transa else _swap(a)
        return _swap(CooMatMul(b.row, b.col, b.shape, not transb).apply((b.data, a))[0])
    raise ValueError('sparse_matmul: one operand must be a CooMatrix and the other a '
                     'Variable or an array, got %s and %s' % (type(a).__name__,
                                                               type(b).__name__))
