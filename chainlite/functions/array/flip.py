"""Reverse the order of elements along an axis (a view)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions import _axis

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _flip(array, axis):
    """``array`` reversed along ``axis`` (an int, negative counting from the end): a view.

    The array-level work of :func:`flip`, equal to ``numpy.flip(array, axis)``.
    """
    index = [slice(None)] * array.ndim
    index[axis] = slice(None, None, -1)
    return array[tuple(index)]


class Flip(function_node.FunctionNode):

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.axis = _axis.normalize_axis(self.axis, x.ndim, self.label)
        return _flip(x, self.axis),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, = grad_outputs
        return Flip(self.axis).apply((gy,))


def flip(x: VariableOrArray, axis: int) -> Variable:
    """Reverses the order of the elements of ``x`` along ``axis``.

    Args:
        x: A Variable or array with at least one axis.
        axis: The axis to reverse (an int; negative values count from the end).

    Returns:
        A Variable (a view of ``x``'s data).

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.flip(np.array([[1.0, 2.0], [3.0, 4.0]]), 1).array
        array([[2., 1.],
               [4., 3.]])
    """
    if not isinstance(axis, (int, numpy.integer)) or isinstance(axis, bool):
        raise TypeError('flip: axis must be an int, got %r' % (axis,))
    return Flip(axis).apply((x,))[0]
