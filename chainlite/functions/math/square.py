"""Elementwise square."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Square(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return 'square'

    _float_inputs = True

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return x * x,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return gy * (x * 2),


def square(x: VariableOrArray) -> Variable:
    """Elementwise square, ``x * x``.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.square(np.array([-3.0, 0.5])).array
        array([9.  , 0.25])
    """
    return Square().apply((x,))[0]
