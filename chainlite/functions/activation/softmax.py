"""Softmax along an axis."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions import _axis
from chainlite.functions.math import sum as sum_

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class Softmax(function_node.FunctionNode):

    _float_inputs = True
    _arg_names = ('x',)

    def __init__(self, axis: int = 1) -> None:
        self.axis = axis

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        axis = self.axis = _axis.normalize_axis(self.axis, x.ndim, self.label)
        self.retain_outputs((0,))
        # Shifted by the maximum: exp cannot overflow, and the largest term is exactly 1.
        y = x - x.max(axis=axis, keepdims=True)
        numpy.exp(y, out=y)
        y /= y.sum(axis=axis, keepdims=True)
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        return _SoftmaxGrad(self.axis).apply((y, gy))


class _SoftmaxGrad(function_node.FunctionNode):
    # gx = y * (gy - sum(gy * y, axis)) in one node instead of five.

    def __init__(self, axis):
        self.axis = axis

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        y, gy = inputs
        gx = y * gy
        gx -= y * gx.sum(axis=self.axis, keepdims=True)
        return gx,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        y, gy = self.get_retained_inputs()
        g, = grad_outputs
        axis = self.axis
        ret = []
        if 0 in indexes:
            # d/dy of y * gy - y * sum(gy * y), contracted with g.
            s = sum_.sum(gy * y, axis=axis, keepdims=True)
            t = sum_.sum(g * y, axis=axis, keepdims=True)
            ret.append(g * (gy - s) - gy * t)
        if 1 in indexes:
            # The map gy -> gx is symmetric: its transpose is itself.
            ret.append(_SoftmaxGrad(axis).apply((y, g))[0])
        return tuple(ret)


def softmax(x: VariableOrArray, axis: int = 1) -> Variable:
    """Softmax along ``axis``: ``exp(x) / sum(exp(x), axis)``, computed stably.

    Args:
        x: A float Variable or array with at least ``axis + 1`` dimensions.
        axis: The axis along which the values are normalized (negative values count from
            the end).

    Returns:
        A Variable of the same shape and dtype, whose values along ``axis`` sum to 1.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.softmax(np.log(np.array([[1.0, 3.0], [2.0, 2.0]]))).array
        array([[0.25, 0.75],
               [0.5 , 0.5 ]])
    """
    return Softmax(axis).apply((x,))[0]
