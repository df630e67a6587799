"""Concatenated rectified linear unit."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions import _axis
from chainlite.functions.array import split_axis

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class CReLU(function_node.FunctionNode):

    _float_inputs = True
    _arg_names = ('x',)

    def __init__(self, axis: int = 1) -> None:
        self.axis = axis

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.axis = _axis.normalize_axis(self.axis, x.ndim, self.label)
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        return xp.concatenate((numpy.maximum(x, 0), numpy.maximum(-x, 0)), axis=self.axis),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        x = x.array
        gy_pos, gy_neg = split_axis.split_axis(gy, 2, self.axis)
        # Constant masks (the gradient at 0 is 0 in both halves) keep double backprop exact.
        return gy_pos * (x > 0).astype(x.dtype) - gy_neg * (x < 0).astype(x.dtype),


def crelu(x: VariableOrArray, axis: int = 1) -> Variable:
    """Concatenated rectified linear unit: ``max(0, x)`` and ``max(0, -x)`` side by side.

    Args:
        x: A float Variable or array with at least ``axis + 1`` dimensions.
        axis: The axis along which the two halves are concatenated (negative values count
            from the end).

    Returns:
        A Variable of the dtype of ``x``, twice as long along ``axis``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.crelu(np.array([[-1.0, 2.0]])).array
        array([[0., 2., 1., 0.]])
    """
    return CReLU(axis).apply((x,))[0]
