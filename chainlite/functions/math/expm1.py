"""Elementwise ``exp(x) - 1``, accurate near 0."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Expm1(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return 'expm1'

    _float_inputs = True

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.retain_outputs((0,))   # exp(x) = y + 1: backward needs y, not x
        return numpy.expm1(x),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        return _Expm1Grad().apply((y, gy))


class _Expm1Grad(function_node.FunctionNode):
    # gx = gy * (y + 1) in one node: one op per backward step instead of two.

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        y, gy = inputs
        return gy * (y + 1),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        y, gy = self.get_retained_inputs()
        g, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(g * gy)
        if 1 in indexes:
            ret.append(_Expm1Grad().apply((y, g))[0])
        return tuple(ret)


def expm1(x: VariableOrArray) -> Variable:
    """Elementwise ``exp(x) - 1``, computed without the cancellation of ``exp(x) - 1`` near 0.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.expm1(np.array([0.0, 1e-10])).array
        array([0.e+00, 1.e-10])
    """
    return Expm1().apply((x,))[0]
