"""Elementwise square root."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import _lazy
from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Sqrt(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return 'sqrt'

    _float_inputs = True

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.retain_outputs((0,))   # d sqrt(x)/dx = 1 / (2 y): backward needs y, not x
        return numpy.sqrt(x),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        return gy / (y * 2),


def sqrt(x: VariableOrArray) -> Variable:
    """Elementwise square root.

    The gradient is infinite at 0 and the result NaN below 0, as in NumPy.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.sqrt(np.array([4.0, 9.0])).array
        array([2., 3.])
    """
    return Sqrt().apply((x,))[0]


# Chainer's module also has rsqrt; chainlite keeps it in its own module (which may import
# this one), imported on first use.
__getattr__, __dir__ = _lazy.attach(
    __name__, {'rsqrt': 'chainlite.functions.math.rsqrt',
               'RsqrtGPU': 'chainlite.functions.math.rsqrt'})[:2]
