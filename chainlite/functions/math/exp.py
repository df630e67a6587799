"""Elementwise exponential."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Exp(function_node.UfuncNode):

    @property
    def label(self) -> str:
        return 'exp'

    _ufunc = numpy.exp
    _output_indexes_to_retain = (0,)  # retain_outputs((0,)), declared once for the class

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        return gy * y,

    def _backward_arrays(self, indexes, grad_outputs, inputs, outputs):
        return grad_outputs[0] * outputs[0],

    def _jvp(self, tangents):
        # Forward-mode rule (chainlite.jvp): dy = y dx, from the retained output.
        assert self._retained_output_data is not None
        y, = self._retained_output_data
        return tangents[0] * y,



def exp(x: VariableOrArray) -> Variable:
    """Elementwise exponential, ``e ** x``.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> F.exp(np.array([0.0, 1.0])).array
        array([1.        , 2.71828183])
    """
    return function_node.apply_ufunc(Exp, x)

