"""Flip an array in the up/down direction (a view)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class FlipUD(function_node.FunctionNode):

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('a',))
        type_check.expect(in_types[0].ndim >= 1)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        a, = inputs
        return a[::-1],

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, = grad_outputs
        return FlipUD().apply((gy,))


def flipud(a: VariableOrArray) -> Variable:
    """Reverses the order of the rows (axis 0) of ``a``.

    Args:
        a: A Variable or array with at least one axis.

    Returns:
        A Variable (a view of ``a``'s data).

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.flipud(np.array([[1.0, 2.0], [3.0, 4.0]])).array
        array([[3., 4.],
               [1., 2.]])
    """
    return FlipUD().apply((a,))[0]
