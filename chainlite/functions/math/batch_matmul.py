"""Batched matrix products of two 3-D (or 2-D column-vector) batches (deprecated)."""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions.array import cast
from chainlite.functions.array import reshape
from chainlite.functions.math import matmul
from chainlite.utils import type_check

if TYPE_CHECKING:

    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def _as_mats(shape):
    # A 2-D operand (B, N) is a batch of N x 1 column vectors.
    return shape if len(shape) == 3 else tuple(shape) + (1,)


class BatchMatMul(function_node.FunctionNode):

    def __init__(self, transa: bool = False, transb: bool = False) -> None:
        self.transa = transa
        self.transb = transb

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('a', 'b'))
        a, b = in_types
        type_check.expect(a.dtype.kind == 'f', b.dtype.kind == 'f',
                          a.ndim >= 2, a.ndim <= 3, b.ndim >= 2, b.ndim <= 3,
                          a.shape[0] == b.shape[0])
        # A 2-D operand's matrices have one column.
        a_cols = a.shape[2] if type_check.eval(a.ndim) == 3 else 1
        b_cols = b.shape[2] if type_check.eval(b.ndim) == 3 else 1
        type_check.expect((a.shape[1] if self.transa else a_cols) ==
                          (b_cols if self.transb else b.shape[1]))

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        a, b = inputs
        a = a.reshape(_as_mats(a.shape))
        b = b.reshape(_as_mats(b.shape))
        return matmul.matmul_arrays(matmul._t(a, self.transa), matmul._t(b, self.transb)),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        a, b = self.get_retained_inputs()
        gy, = grad_outputs
        a_shape, b_shape = a.shape, b.shape
        a = reshape.reshape(a, _as_mats(a_shape))
        b = reshape.reshape(b, _as_mats(b_shape))
        ta, tb = self.transa, self.transb
        ret = []
        if 0 in indexes:
            ga = (matmul.matmul(b, gy, transa=tb, transb=True) if ta
                  else matmul.matmul(gy, b, transb=not tb))
            ret.append(cast.cast_to(reshape.reshape(ga, a_shape), a.dtype))
        if 1 in indexes:
            gb = (matmul.matmul(gy, a, transa=True, transb=ta) if tb
                  else matmul.matmul(a, gy, transa=not ta))
            ret.append(cast.cast_to(reshape.reshape(gb, b_shape), b.dtype))
        return tuple(ret)


class BatchMatMulGrad(function_node.FunctionNode):
    """BatchMatMul's gradient node (Chainer's): ``BatchMatMulGrad(transa, transb).apply((a, b,
    gy))`` is ``(ga, gb)``, the gradients of ``batch_matmul(a, b, transa, transb)`` for the
    output gradient ``gy``, in the shapes of ``a`` and ``b``."""

    _float_inputs = True
    _arg_names = ('a', 'b', 'gy')

    def __init__(self, transa: bool = False, transb: bool = False) -> None:
        self.transa = transa
        self.transb = transb

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 2))
        a, b, gy = inputs
        ga = matmul._batch_matmul(gy, b, False, not self.transb, self.transa)
        gb = matmul._batch_matmul(a, gy, not self.transa, False, self.transb)
        return (ga.reshape(a.shape).astype(a.dtype, copy=False),
                gb.reshape(b.shape).astype(b.dtype, copy=False))

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        a, b, gy = self.get_retained_inputs()
        xp = backend.get_array_module(gy.array)
        gga, ggb = [xp.zeros(v.shape, v.dtype) if g is None else g
                    for g, v in zip(grad_outputs, (a, b))]
        ret: list[Any] = []
        if 0 in indexes or 1 in indexes:
            # Both outputs are bilinear in (a or b, gy): the same node, on the new gradients.
            ga, gb = BatchMatMulGrad(self.transa, self.transb).apply((gga, ggb, gy))
            ret.extend([g for i, g in ((0, ga), (1, gb)) if i in indexes])
        if 2 in indexes:
            ret.append(BatchMatMul(self.transa, self.transb).apply((gga, b))[0] +
                       BatchMatMul(self.transa, self.transb).apply((a, ggb))[0])
        return tuple(ret)


def batch_matmul(a: VariableOrArray, b: VariableOrArray, transa: bool = False,
                 transb: bool = False) -> Variable:
    """Matrix products of two batches of matrices, one product per batch entry.

    Deprecated, as in Chainer: it warns with :class:`DeprecationWarning`; use
    :func:`~chainlite.functions.matmul` instead.

    Args:
        a: A float Variable or array of shape ``(B, M, N)`` (B matrices), or ``(B, N)``
            (B column vectors, ``N x 1`` matrices).
        b: A float Variable or array of the same batch size, read the same way.
        transa: Transpose each matrix of ``a`` first.
        transb: Transpose each matrix of ``b`` first.

    Returns:
        A 3-D Variable of shape ``(B, rows, cols)``.

    Example:
        >>> import warnings
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter('ignore', DeprecationWarning)
        ...     y = F.batch_matmul(np.ones((2, 3)), np.ones((2, 3)), transa=True)
        >>> y.array
        array([[[3.]],
        <BLANKLINE>
               [[3.]]])
    """
    warnings.warn('batch_matmul is deprecated. Use matmul instead.', DeprecationWarning,
                  stacklevel=2)
    return BatchMatMul(transa, transb).apply((a, b))[0]
