"""Elementwise inverse tangent."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Arctan(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return 'arctan'

    _float_inputs = True

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return numpy.arctan(x),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return _ArctanGrad().apply((x, gy))


class _ArctanGrad(function_node.FunctionNode):
    # gx = gy / (1 + x^2) in one node: one op per backward step instead of three.

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        return gy / (x * x + 1),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, gy = self.get_retained_inputs()
        g, = grad_outputs
        ret = []
        if 0 in indexes:
            # d/dx 1 / (1 + x^2) = -2x / (1 + x^2)^2
            d = x * x + 1
            ret.append(g * gy * x * -2 / (d * d))
        if 1 in indexes:
            ret.append(_ArctanGrad().apply((x, g))[0])
        return tuple(ret)


# Chainer's name for arctan's gradient node, ``ArctanGrad().apply((x, gy))``.
ArctanGrad = _ArctanGrad


def arctan(x: VariableOrArray) -> Variable:
    """Elementwise inverse tangent.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype, with values in ``(-pi/2, pi/2)``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.arctan(np.array([0.0, 1.0])).array
        array([0.        , 0.78539816])
    """
    return Arctan().apply((x,))[0]
