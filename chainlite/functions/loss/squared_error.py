"""Elementwise squared difference of two arrays."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import _lazy
from chainlite import function_node
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class SquaredError(function_node.FunctionNode):

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x0', 'x1'))
        x0, x1 = in_types
        type_check.expect(x0.dtype.kind == 'f', x0.dtype == x1.dtype, x0.shape == x1.shape)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        diff = x0 - x1
        diff *= diff
        return diff,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x0, x1 = self.get_retained_inputs()
        gy, = grad_outputs
        gx0 = gy * (x0 - x1) * 2.0
        return gx0, -gx0


def squared_error(x0: VariableOrArray, x1: VariableOrArray) -> Variable:
    """Elementwise squared error, ``(x0 - x1) ** 2``.

    Args:
        x0: A float Variable or array.
        x1: A Variable or array of the shape and dtype of ``x0``.

    Returns:
        A Variable of the shape and dtype of ``x0``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.squared_error(np.array([1.0, 2.0]), np.array([0.0, 4.0])).array
        array([1., 4.])
    """
    return SquaredError().apply((x0, x1))[0]


# Chainer's module also has squared_difference; chainlite keeps it in its own module (which
# may import this one), imported on first use.
__getattr__, __dir__ = _lazy.attach(
    __name__, {'squared_difference': 'chainlite.functions.math.squared_difference'})[:2]
