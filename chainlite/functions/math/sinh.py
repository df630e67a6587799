"""Elementwise hyperbolic sine."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Sinh(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return 'sinh'

    _float_inputs = True

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return numpy.sinh(x),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return _SinhGrad().apply((x, gy))


class _SinhGrad(function_node.FunctionNode):
    # gx = gy * cosh(x) in one node: one op per backward step instead of two.

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        return gy * numpy.cosh(x),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, gy = self.get_retained_inputs()
        g, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(g * gy * sinh(x))
        if 1 in indexes:
            ret.append(_SinhGrad().apply((x, g))[0])
        return tuple(ret)


def sinh(x: VariableOrArray) -> Variable:
    """Elementwise hyperbolic sine.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.sinh(np.array([0.0, 1.0])).array
        array([0.        , 1.17520119])
    """
    return Sinh().apply((x,))[0]
