"""Swish activation, ``x * sigmoid(beta * x)``."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions.activation import sigmoid
from chainlite.functions.array import reshape
from chainlite.functions.array import sum_to
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _extended_shape(beta, x):
    # beta's axes line up with x's axes 1, 2, ...; the batch axis and the rest broadcast.
    return (1,) + beta.shape + (1,) * (x.ndim - beta.ndim - 1)


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
