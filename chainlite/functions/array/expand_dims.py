"""Insert an axis of length 1 (a view, as NumPy gives)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions.array import reshape
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class ExpandDims(function_node.FunctionNode):

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        # The new axis may go anywhere in the output: -x.ndim - 1 <= axis <= x.ndim.
        type_check._argname(in_types, ('x',))
        x, = in_types
        type_check.expect(-x.ndim - 1 <= self.axis, x.ndim >= self.axis)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        return numpy.expand_dims(x, self.axis),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        return reshape.reshape(gy, in_nodes[0].shape),


def expand_dims(x: VariableOrArray, axis: int) -> Variable:
    """Inserts a new axis of length 1 at position ``axis``.

    Args:
        x: A Variable or array.
        axis: An int with ``-x.ndim - 1 <= axis <= x.ndim``; a negative value counts from
            the end of the output's axes (``-1`` appends the axis).

    Returns:
        A Variable with ``x.ndim + 1`` axes (a view of ``x``'s data).

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.expand_dims(np.zeros((2, 3)), 1).shape
        (2, 1, 3)
        >>> F.expand_dims(np.zeros((2, 3)), -1).shape
        (2, 3, 1)
    """
    if not isinstance(axis, (int, numpy.integer)) or isinstance(axis, bool):
        raise TypeError('expand_dims: axis must be an int, got %r' % (axis,))
    return ExpandDims(int(axis)).apply((x,))[0]
