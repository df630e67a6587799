"""Interchange two axes of an array (a view)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions import _axis

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class Swapaxes(function_node.FunctionNode):

    def __init__(self, axis1: int, axis2: int) -> None:
        self.axis1 = axis1
        self.axis2 = axis2

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.axis1 = _axis.normalize_axis(self.axis1, x.ndim, self.label)
        self.axis2 = _axis.normalize_axis(self.axis2, x.ndim, self.label)
        return x.swapaxes(self.axis1, self.axis2),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, = grad_outputs
        # A swap is its own inverse.
        return Swapaxes(self.axis1, self.axis2).apply((gy,))


def swapaxes(x: VariableOrArray, axis1: int, axis2: int) -> Variable:
    """Interchanges two axes of ``x``.

    Args:
        x: A Variable or array.
        axis1: The first axis (an int; negative values count from the end).
        axis2: The second axis.

    Returns:
        A Variable (a view of ``x``'s data).

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.swapaxes(np.zeros((1, 2, 3)), 0, -1).shape
        (3, 2, 1)
    """
    for a in (axis1, axis2):
        # normalize_axis would take None or a 1-tuple; NumPy takes neither.
        if not isinstance(a, (int, numpy.integer)) or isinstance(a, bool):
            raise TypeError('swapaxes: axis1 and axis2 must be ints, got %r' % (a,))
    return Swapaxes(axis1, axis2).apply((x,))[0]
