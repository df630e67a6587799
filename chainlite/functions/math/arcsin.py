"""Elementwise inverse sine."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Arcsin(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return 'arcsin'

    _float_inputs = True

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return numpy.arcsin(x),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return _ArcsinGrad().apply((x, gy))


class _ArcsinGrad(function_node.FunctionNode):
    # gx = gy / sqrt(1 - x^2) in one node: one op per backward step instead of five.

    _negate = False  # _ArccosGrad: d/dx arccos(x) = -d/dx arcsin(x)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        if self._negate:
            gy = -gy
        return gy / numpy.sqrt(1 - x * x),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, gy = self.get_retained_inputs()
        g, = grad_outputs
        ret = []
        if 0 in indexes:
            # d/dx (1 - x^2)^(-1/2) = x (1 - x^2)^(-3/2)
            ret.append((-g if self._negate else g) * gy * x * (1 - x * x) ** -1.5)
        if 1 in indexes:
            ret.append(type(self)().apply((x, g))[0])
        return tuple(ret)


# Chainer's name for arcsin's gradient node, ``ArcsinGrad().apply((x, gy))``.
ArcsinGrad = _ArcsinGrad


def arcsin(x: VariableOrArray) -> Variable:
    """Elementwise inverse sine.

    The gradient is infinite at -1 and 1; outside ``[-1, 1]`` the result is NaN, as in NumPy.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype, with values in ``[-pi/2, pi/2]``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.arcsin(np.array([0.0, 1.0])).array
        array([0.        , 1.57079633])
    """
    return Arcsin().apply((x,))[0]
