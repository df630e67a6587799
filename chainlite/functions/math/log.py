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
    _ufunc = numpy.log  # forward's arithmetic (see function_node.apply_ufunc)

    # retain_inputs((0,)) in every forward, declared once for the class: one call less per
    # op on the library's hottest path.
    _input_indexes_to_retain = (0,)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
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
    return function_node.apply_ufunc(Log, x)
