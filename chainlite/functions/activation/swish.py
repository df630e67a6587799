"""Swish activation, ``x * sigmoid(beta * x)``."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

import chainlite
from chainlite import backend
from chainlite import function_node
from chainlite.functions.activation import sigmoid
from chainlite.functions.array import broadcast
from chainlite.functions.array import reshape
from chainlite.functions.array import sum_to
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _extended_shape(beta, x):
    # beta's axes line up with x's axes 1, 2, ...; the batch axis and the rest broadcast.
    return (1,) + beta.shape + (1,) * (x.ndim - beta.ndim - 1)


def _get_extended_shape(beta, x):
    # Chainer's name for the shape beta is reshaped to before broadcasting against x.
    return _extended_shape(beta, x)


def _get_reduction_axes(beta, x):
    # The axes of x that beta is shared along: the batch axis and those after beta's.
    return (0,) + tuple(range(1 + beta.ndim, x.ndim))


def _sigmoid(x):
    # The logistic sigmoid of an array through tanh: no overflow for large |x|.
    half = x.dtype.type(0.5)
    return numpy.tanh(x * half) * half + half


class Swish(function_node.FunctionNode):

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'beta'))
        x, beta = in_types
        type_check.expect(x.dtype.kind == 'f', beta.dtype == x.dtype,
                          x.ndim >= beta.ndim + 1)
        type_check.expect(x.shape[1:1 + type_check.eval(beta.ndim)] == beta.shape)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, beta = inputs
        self.retain_inputs((0, 1))
        bx = beta.reshape(_extended_shape(beta, x)) * x
        # sigmoid through tanh: no overflow for large |beta * x|.
        return x * (numpy.tanh(bx * 0.5) * 0.5 + 0.5),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, beta = self.get_retained_inputs()
        gy, = grad_outputs
        ext = _extended_shape(beta, x)
        b = reshape.reshape(beta, ext)
        s = sigmoid.sigmoid(x * b)
        # ds/d(beta * x) = s * (1 - s); everything is a Variable, so double backprop works.
        ds = s - s * s
        ret = []
        if 0 in indexes:
            ret.append(gy * (s + x * b * ds))
        if 1 in indexes:
            ret.append(reshape.reshape(sum_to.sum_to(gy * x * x * ds, ext), beta.shape))
        return tuple(ret)


class SwishGrad(function_node.FunctionNode):
    """Swish's gradients ``(gx, gbeta)`` as Chainer's node, applied to ``(x, beta, gy)``.

    Args:
        extended_shape: The shape ``beta`` is reshaped to against ``x``.
        reduction_axes: The axes of ``x`` that ``gbeta`` is summed over.
    """

    def __init__(self, extended_shape: tuple[int, ...],
                 reduction_axes: tuple[int, ...]) -> None:
        self.extended_shape = extended_shape
        self.reduction_axes = reduction_axes

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 2))
        x, beta, gy = inputs
        beta = beta.reshape(self.extended_shape)
        s = _sigmoid(beta * x)
        y = x * s
        by = beta * y
        gx = gy * (by + s * (1 - by))
        gb = backend.get_array_module(x).asarray((gy * y * (x - y)).sum(axis=self.reduction_axes))
        return gx.astype(x.dtype, copy=False), gb.astype(x.dtype, copy=False)

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, beta, gy = self.get_retained_inputs()
        # The forward's formula again on Variables, differentiated by backprop itself.
        with chainlite.using_config('enable_backprop', True):
            b = broadcast.broadcast_to(reshape.reshape(beta, self.extended_shape), x.shape)
            s = sigmoid.sigmoid(b * x)
            y = x * s
            by = b * y
            gx = gy * (by + s * (1 - by))
            gb = reshape.reshape(sum_to.sum_to(gy * y * (x - y), self.extended_shape),
                                 beta.shape)
            pairs = [(o, g) for o, g in zip((gx, gb), grad_outputs) if g is not None]
            grads = chainlite.grad([o for o, _ in pairs], [x, beta, gy],
                                   grad_outputs=[g for _, g in pairs],
                                   enable_double_backprop=True)
        return tuple(grads[i] for i in indexes)


def swish(x: VariableOrArray, beta: VariableOrArray) -> Variable:
    """Swish activation, ``x * sigmoid(beta * x)``.

    ``swish(x, 0) = x / 2``, and as ``beta`` grows it approaches ``max(0, x)``.

    Args:
        x: A float Variable or array of shape ``(B, s_1, ..., s_N)``; the first axis is the
            batch axis.
        beta: A Variable or array of ``x``'s dtype and shape ``(s_1, ..., s_M)`` with
            ``0 <= M <= N``: it is reshaped to ``(1, s_1, ..., s_M, 1, ..., 1)`` and
            broadcast against ``x``.

    Returns:
        A Variable of the shape and dtype of ``x``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.swish(np.array([[-1.0, 0.0, 2.0]]), np.array(0.0)).array
        array([[-0.5,  0. ,  1. ]])
    """
    return Swish().apply((x, beta))[0]
