"""Elementwise natural logarithm."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Log(function_node.UfuncNode):

    @property
    def label(self) -> str:
        return 'log'

    _ufunc = numpy.log
    _input_indexes_to_retain = (0,)  # retain_inputs((0,)), declared once for the class

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
    return function_node.apply_ufunc(Log, x)
