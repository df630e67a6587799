"""L2 normalization along given axes."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions import _axis
from chainlite.functions.array import where as where_mod
from chainlite.functions.math import sqrt as sqrt_mod
from chainlite.functions.math import sum as sum_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class _SetItemZero(function_node.FunctionNode):
    # Chainer's helper: y = zeros(mask.shape) with y[mask] = x (x holds the masked entries
    # in order); its gradient is g[mask].

    def __init__(self, mask):
        self.mask = mask

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        y = backend.get_array_module(x).zeros(self.mask.shape, x.dtype)
        y[self.mask] = x
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        g, = grad_outputs
        return g[self.mask],


class NormalizeL2(function_node.FunctionNode):

    def __init__(self, eps: float, axis: int | Sequence[int]) -> None:
        self.eps = eps
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        x, = inputs
        self.axis = _axis.normalize_axes(self.axis, x.ndim, self.label)
        norm = (x * x).sum(axis=self.axis, keepdims=True)
        norm **= 0.5  # a fresh array: fine to update in place
        norm += self.eps
        return x / norm,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        # With n = |x| and d = n + eps: gx = gy / d - x * sum(gy * x) / (d ** 2 * n), from
        # differentiable functions of x so the gradient can be differentiated again. Where
        # n is 0 (a zero vector) the second term is 0, as in Chainer: the gradient is gy / eps
        # there, and n is computed on a safe value so no NaN reaches any order of gradient.
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        xp = backend.get_array_module(x.array)
        n2 = sum_mod.sum(x * x, axis=self.axis, keepdims=True)
        nonzero = n2.array != 0
        # (On a GPU, the general branch: the same values, without reading nonzero on the host.)
        if x.array.__class__ is numpy.ndarray and nonzero.all():
            n = sqrt_mod.sqrt(n2)
            d = n + self.eps
            s = sum_mod.sum(gy * x, axis=self.axis, keepdims=True) / n
        else:
            zeros = xp.zeros(n2.shape, n2.dtype)
            n = sqrt_mod.sqrt(where_mod.where(nonzero, n2, zeros + 1))
            d = where_mod.where(nonzero, n, zeros) + self.eps
            s = where_mod.where(
                nonzero, sum_mod.sum(gy * x, axis=self.axis, keepdims=True) / n, zeros)
        return gy / d - x * (s / (d * d)),


def normalize(x: VariableOrArray, eps: float = 1e-5, axis: int | Sequence[int] = 1) -> Variable:
    """L2 normalization: ``x`` divided by its Euclidean norm along ``axis`` (plus ``eps``).

    ``y = x / (sqrt(sum(x ** 2, axis)) + eps)``; the norm is not reduced away, so ``y`` has
    the shape of ``x``.

    Args:
        x: A float Variable or array.
        eps: Added to the norm, so that a zero vector gives zeros instead of NaN.
        axis: An int or a tuple of ints: the axes the norm is taken over.

    Returns:
        A Variable of ``x``'s shape and dtype. Where the norm is zero the gradient is
        ``gy / eps``, as in Chainer.

    Example:
        >>> import numpy as np
        >>> normalize(np.array([[3.0, 4.0], [0.0, 2.0]]), eps=0.0).array
        array([[0.6, 0.8],
               [0. , 1. ]])
    """
    return NormalizeL2(eps, axis).apply((x,))[0]
