"""Elementwise natural logarithm."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Log(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return 'log'

    _float_inputs = True

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return numpy.log(x),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return gy / x,

    def _backward_arrays(self, indexes, grad_outputs, inputs, outputs):
        return grad_outputs[0] / inputs[0],


def log(x: VariableOrArray) -> Variable:
    """Elementwise natural logarithm.

    Args:
        x: A float Variable or array (positive values; NumPy's nan/-inf elsewhere).

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> F.log(np.array([1.0, np.e])).array
        array([0., 1.])
    """
    return Log()._apply1(x)
