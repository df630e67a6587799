"""Bilinear function of two inputs (the building block of Neural Tensor Networks)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions.array import broadcast
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


# Chainer's differentiable contractions for bilinear's gradients, named by their subscripts.

def _ij_ik_il_to_jkl(a: VariableOrArray, b: VariableOrArray, c: VariableOrArray) -> Variable:
    return einsum.einsum('ij,ik,il->jkl', a, b, c)


def _ij_ik_jkl_to_il(a: VariableOrArray, b: VariableOrArray, c: VariableOrArray) -> Variable:
    return einsum.einsum('ij,ik,jkl->il', a, b, c)


def _ij_il_jkl_to_ik(a: VariableOrArray, b: VariableOrArray, c: VariableOrArray) -> Variable:
    return einsum.einsum('ij,il,jkl->ik', a, b, c)


def _ik_il_jkl_to_ij(a: VariableOrArray, b: VariableOrArray, c: VariableOrArray) -> Variable:
    return einsum.einsum('ik,il,jkl->ij', a, b, c)


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


class BilinearFunctionGrad(function_node.FunctionNode):
    """bilinear's gradient node (Chainer's): ``BilinearFunctionGrad().apply((e1, e2, W,
    gy))`` is ``(ge1, ge2, gW)``, and ``.apply((e1, e2, W, V1, V2, gy))`` is ``(ge1, ge2, gW,
    gV1, gV2, gb)``: the gradients of ``bilinear`` for the output gradient ``gy``."""

    _float_inputs = True

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        e1, e2 = _as_mat(inputs[0]), _as_mat(inputs[1])
        W, gy = inputs[2], inputs[-1]
        xp = backend.get_array_module(W)
        gyW = xp.tensordot(gy, W, axes=(1, 2))  # ijk
        ge1 = xp.einsum('ik,ijk->ij', e2, gyW)
        ge2 = xp.einsum('ij,ijk->ik', e1, gyW)
        gW = xp.einsum('ij,ik,il->jkl', e1, e2, gy)
        extra: tuple = ()
        if len(inputs) == 6:
            V1, V2 = inputs[3], inputs[4]
            ge1 += gy @ V1.T
            ge2 += gy @ V2.T
            extra = (e1.T @ gy, e2.T @ gy, gy.sum(0))
        return (ge1.reshape(inputs[0].shape), ge2.reshape(inputs[1].shape), gW) + extra

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        inputs = self.get_retained_inputs()
        e1 = reshape.reshape(inputs[0], (len(inputs[0]), -1))
        e2 = reshape.reshape(inputs[1], (len(inputs[1]), -1))
        W, gy = inputs[2], inputs[-1]
        gg = list(grad_outputs)
        for i in (0, 1):
            if gg[i] is not None:
                gg[i] = reshape.reshape(gg[i], (len(gg[i]), -1))
        gge1, gge2, ggW = gg[:3]
        # Each output is multilinear in the inputs: every (output, input) pair gives one
        # contraction of the output's gradient with the output's other factors.
        terms: dict[int, list[Any]] = {i: [] for i in range(len(inputs))}
        if gge1 is not None:
            terms[1].append(_ij_il_jkl_to_ik(gge1, gy, W))
            terms[2].append(_ij_ik_il_to_jkl(gge1, e2, gy))
            terms[len(inputs) - 1].append(_ij_ik_jkl_to_il(gge1, e2, W))
        if gge2 is not None:
            terms[0].append(_ik_il_jkl_to_ij(gge2, gy, W))
            terms[2].append(_ij_ik_il_to_jkl(e1, gge2, gy))
            terms[len(inputs) - 1].append(_ij_ik_jkl_to_il(e1, gge2, W))
        if ggW is not None:
            terms[0].append(_ik_il_jkl_to_ij(e2, gy, ggW))
            terms[1].append(_ij_il_jkl_to_ik(e1, gy, ggW))
            terms[len(inputs) - 1].append(_ij_ik_jkl_to_il(e1, e2, ggW))
        if len(inputs) == 6:
            V1, V2 = inputs[3], inputs[4]
            ggV1, ggV2, ggb = gg[3:]
            if gge1 is not None:
                terms[3].append(matmul.matmul(gge1, gy, transa=True))
                terms[5].append(matmul.matmul(gge1, V1))
            if gge2 is not None:
                terms[4].append(matmul.matmul(gge2, gy, transa=True))
                terms[5].append(matmul.matmul(gge2, V2))
            if ggV1 is not None:
                terms[0].append(matmul.matmul(gy, ggV1, transb=True))
                terms[5].append(matmul.matmul(e1, ggV1))
            if ggV2 is not None:
                terms[1].append(matmul.matmul(gy, ggV2, transb=True))
                terms[5].append(matmul.matmul(e2, ggV2))
            if ggb is not None:
                terms[5].append(broadcast.broadcast_to(ggb, gy.shape))
        ret: list[Any] = []
        for i in indexes:
            if not terms[i]:
                ret.append(None)
                continue
            total = terms[i][0]
            for t in terms[i][1:]:
                total = total + t
            ret.append(reshape.reshape(total, inputs[i].shape) if i < 2 else total)
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
