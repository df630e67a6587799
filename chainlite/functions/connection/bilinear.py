"""Bilinear function of two inputs (the building block of Neural Tensor Networks)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions.array import reshape
from chainlite.functions.math import einsum
from chainlite.functions.math import matmul
from chainlite.functions.math import sum as sum_
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _as_mat(x):
    return x.reshape(len(x), -1)


class BilinearFunction(function_node.FunctionNode):

    def check_type_forward(self, in_types: Any) -> None:
        n_in = type_check.eval(in_types.size())
        if n_in not in (3, 6):
            raise type_check.InvalidType('in_types.size() in (3, 6)',
                                         'in_types.size() == %d' % n_in)
        type_check._argname(in_types, ('e1', 'e2', 'W', 'V1', 'V2', 'b')[:n_in])
        e1, e2, W = in_types[:3]
        type_check.expect(
            e1.dtype.kind == 'f', e2.dtype == e1.dtype, W.dtype == e1.dtype,
            e1.ndim >= 2, e2.ndim >= 2, e1.shape[0] == e2.shape[0], W.ndim == 3,
            type_check.prod(e1.shape[1:]) == W.shape[0],
            type_check.prod(e2.shape[1:]) == W.shape[1])
        if n_in == 6:
            V1, V2, b = in_types[3:]
            type_check.expect(
                V1.dtype == e1.dtype, V2.dtype == e1.dtype, b.dtype == e1.dtype,
                V1.ndim == 2, V1.shape[0] == W.shape[0], V1.shape[1] == W.shape[2],
                V2.ndim == 2, V2.shape[0] == W.shape[1], V2.shape[1] == W.shape[2],
                b.ndim == 1, b.shape[0] == W.shape[2])

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        e1, e2, W = _as_mat(inputs[0]), _as_mat(inputs[1]), inputs[2]
        xp = backend.get_array_module(W)
        j, k, l_ = W.shape
        # e1 W first (one matrix product), then the e2 contraction per sample.
        e1W = (e1 @ W.reshape(j, k * l_)).reshape(len(e1), k, l_)
        y = xp.einsum('ik,ikl->il', e2, e1W)
        if len(inputs) == 6:
            V1, V2, b = inputs[3:]
            y += e1 @ V1
            y += e2 @ V2
            y += b
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        inputs = self.get_retained_inputs()
        gy, = grad_outputs
        e1, e2, W = inputs[:3]
        e1m = reshape.reshape(e1, (len(e1), -1))
        e2m = reshape.reshape(e2, (len(e2), -1))
        ret = []
        if 0 in indexes:
            ge1 = einsum.einsum('il,jkl,ik->ij', gy, W, e2m)
            if len(inputs) == 6:
                ge1 += matmul.matmul(gy, inputs[3], transb=True)
            ret.append(reshape.reshape(ge1, e1.shape))
        if 1 in indexes:
            ge2 = einsum.einsum('il,jkl,ij->ik', gy, W, e1m)
            if len(inputs) == 6:
                ge2 += matmul.matmul(gy, inputs[4], transb=True)
            ret.append(reshape.reshape(ge2, e2.shape))
        if 2 in indexes:
            ret.append(einsum.einsum('ij,ik,il->jkl', e1m, e2m, gy))
        if 3 in indexes:
            ret.append(matmul.matmul(e1m, gy, transa=True))
        if 4 in indexes:
            ret.append(matmul.matmul(e2m, gy, transa=True))
        if 5 in indexes:
            ret.append(sum_.sum(gy, axis=0))
        return tuple(ret)


def bilinear(e1: VariableOrArray, e2: VariableOrArray, W: VariableOrArray,
             V1: VariableOrArray | None = None, V2: VariableOrArray | None = None,
             b: VariableOrArray | None = None) -> Variable:
    """Bilinear function: ``y_il = sum_jk e1_ij e2_ik W_jkl (+ e1 V1 + e2 V2 + b)``.

    With the linear parameters ``V1``, ``V2`` and ``b`` (all three or none) the output is
    ``y_il = sum_jk e1_ij e2_ik W_jkl + sum_j e1_ij V1_jl + sum_k e2_ik V2_kl + b_l``. Inputs
    with more than two axes are flattened after the first (batch) axis.

    Args:
        e1: A float Variable or array of shape ``(I, J)`` (or ``(I, ...)`` of size J per
            sample): the left input.
        e2: A float Variable or array of shape ``(I, K)`` (or ``(I, ...)``): the right input.
        W: Quadratic weights of shape ``(J, K, L)``.
        V1: Left linear weights of shape ``(J, L)``, or None.
        V2: Right linear weights of shape ``(K, L)``, or None.
        b: Bias of shape ``(L,)``, or None.

    Returns:
        A Variable of shape ``(I, L)``.

    Raises:
        ValueError: If some but not all of ``V1``, ``V2`` and ``b`` are given.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> e1, e2 = np.array([[1., 2.]]), np.array([[3., 4., 5.]])
        >>> W = np.ones((2, 3, 1))
        >>> F.bilinear(e1, e2, W).array
        array([[36.]])
        >>> F.bilinear(e1, e2, W, np.ones((2, 1)), np.zeros((3, 1)), np.array([0.5])).array
        array([[39.5]])
    """
    flags = [V1 is None, V2 is None, b is None]
    if any(flags) and not all(flags):
        raise ValueError('bilinear: give all of V1, V2 and b, or none of them')
    inputs = (e1, e2, W) if flags[0] else (e1, e2, W, V1, V2, b)
    return BilinearFunction().apply(inputs)[0]
