"""Parametric rectified linear unit."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.backends import cuda
from chainlite.functions.array import broadcast
from chainlite.functions.array import reshape
from chainlite.functions.array import sum_to
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _extended_shape(W, x):
    # W's axes line up with x's axes 1, 2, ...; the batch axis and the rest broadcast.
    return (1,) + W.shape + (1,) * (x.ndim - W.ndim - 1)


def _fwd_kern() -> Any:
    # Chainer's CUDA kernel for PReLU; cuda.elementwise raises RuntimeError here, as in
    # Chainer without CuPy.
    return cuda.elementwise('T x, T cond, T W', 'T y',
                            'y = cond >= 0 ? x : (T)(x * W)', 'prelu')


def _get_extended_shape(W, x):
    # Chainer's name for the shape W is reshaped to before broadcasting against x.
    return _extended_shape(W, x)


def _get_reduce_axes(W, x):
    # The axes of x that W is shared along: the batch axis and those after W's.
    return (0,) + tuple(range(1 + W.ndim, x.ndim))


class PReLUFunction(function_node.FunctionNode):

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'W'))
        x, W = in_types
        type_check.expect(x.dtype.kind == 'f', W.dtype == x.dtype, x.ndim >= W.ndim + 1)
        type_check.expect(x.shape[1:1 + type_check.eval(W.ndim)] == W.shape)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, W = inputs
        self.retain_inputs((0, 1))
        return numpy.where(x > 0, x, x * W.reshape(_extended_shape(W, x))),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        ext = _extended_shape(W, x)
        # Which side of 0 each element is on is piecewise constant: constant masks keep
        # double backprop exact.
        neg = (x.array <= 0).astype(x.dtype)
        ret = []
        if 0 in indexes:
            # 1 where x > 0, W where x <= 0.
            ret.append(gy * (reshape.reshape(W, ext) * neg + (1 - neg)))
        if 1 in indexes:
            ret.append(reshape.reshape(sum_to.sum_to(gy * x * neg, ext), W.shape))
        return tuple(ret)


class PReLUFunctionGrad(function_node.FunctionNode):
    """PReLU's gradients ``(gx, gW)`` as Chainer's node, applied to ``(x, W, gy)``.

    ``gx`` is ``gy`` where ``cond >= 0`` and ``gy * W`` elsewhere; ``gW`` is ``x * gy``
    where ``cond < 0``, summed over ``reduce_axes`` (not summed when it is None).

    Args:
        cond: The array whose sign picks the branch (PReLU's input).
        reduce_axes: The axes ``gW`` is summed over, or None.
        extended_shape: The shape ``W`` is reshaped to against ``x``.
    """

    def __init__(self, cond: numpy.ndarray, reduce_axes: tuple[int, ...] | None,
                 extended_shape: tuple[int, ...]) -> None:
        self.cond = cond
        self.reduce_axes = reduce_axes
        self.extended_shape = extended_shape

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'W', 'gy'))
        x, W, gy = in_types
        type_check.expect(x.dtype.kind == 'f', W.dtype == x.dtype, gy.dtype == x.dtype,
                          gy.shape == x.shape)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 2))
        x, W, gy = inputs
        positive = self.cond >= 0
        gW = numpy.where(positive, 0, x * gy).astype(x.dtype, copy=False)
        if self.reduce_axes is not None:
            gW = backend.get_array_module(x).asarray(gW.sum(axis=self.reduce_axes))
        gx = numpy.where(positive, gy, gy * W.reshape(self.extended_shape))
        return gx.astype(x.dtype, copy=False), gW

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, W, gy = self.get_retained_inputs()
        ggx, ggW = grad_outputs
        neg = (self.cond < 0).astype(x.dtype)
        if ggW is not None and self.reduce_axes is not None:
            ggW = broadcast.broadcast_to(reshape.reshape(ggW, self.extended_shape), x.shape)
        ret = []
        if 0 in indexes:
            ret.append(None if ggW is None else ggW * gy * neg)
        if 1 in indexes:
            gW = None
            if ggx is not None:
                gW = sum_to.sum_to(ggx * gy * neg, self.extended_shape)
                gW = reshape.reshape(gW, W.shape)
            ret.append(gW)
        if 2 in indexes:
            ggy = None
            if ggx is not None:
                W_ext = broadcast.broadcast_to(reshape.reshape(W, self.extended_shape), x.shape)
                ggy = ggx * (W_ext * neg + (1 - neg))
            if ggW is not None:
                ggy = ggW * x * neg if ggy is None else ggy + ggW * x * neg
            ret.append(ggy)
        return tuple(ret)


def prelu(x: VariableOrArray, W: VariableOrArray) -> Variable:
    """Parametric rectified linear unit: ``x`` where ``x > 0``, ``W * x`` elsewhere.

    ``W`` is shared along the batch axis and the trailing axes: with ``W`` of shape
    ``(s_1, ..., s_M)``, ``x`` must have shape ``(B, s_1, ..., s_M, ...)`` (for images,
    ``W`` of shape ``(C,)`` gives one slope per channel).

    Args:
        x: A float Variable or array; the first axis is the batch axis.
        W: A Variable or array of ``x``'s dtype: the slopes for negative inputs.

    Returns:
        A Variable of the shape and dtype of ``x``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.prelu(np.array([[-2.0, -2.0, 3.0]]), np.array([0.5, 0.1, 0.5])).array
        array([[-1. , -0.2,  3. ]])
    """
    return PReLUFunction().apply((x, W))[0]
