"""Elementwise hyperbolic cosine."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Cosh(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return 'cosh'

    _float_inputs = True

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return numpy.cosh(x),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return _CoshGrad().apply((x, gy))


class _CoshGrad(function_node.FunctionNode):
    # gx = gy * sinh(x) in one node: one op per backward step instead of two.

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        return gy * numpy.sinh(x),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, gy = self.get_retained_inputs()
        g, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(g * gy * cosh(x))
        if 1 in indexes:
            ret.append(_CoshGrad().apply((x, g))[0])
        return tuple(ret)


def cosh(x: VariableOrArray) -> Variable:
    """Elementwise hyperbolic cosine.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype, with values of at least 1.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.cosh(np.array([0.0, 1.0])).array
        array([1.        , 1.54308063])
    """
    return Cosh().apply((x,))[0]
