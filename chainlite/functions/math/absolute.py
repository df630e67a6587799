"""Elementwise absolute value."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Absolute(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return '|_|'

    _float_inputs = True

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return abs(x),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, = grad_outputs
        x, = self.get_retained_inputs()
        # sign(x) is piecewise constant: a constant array keeps double backprop exact.
        return gy * numpy.sign(x.array),


class AbsoluteGrad(function_node.FunctionNode):
    """The gradient node of ``|x|`` (Chainer's): ``AbsoluteGrad(x).apply((gy,))`` is
    ``sign(x) * gy``, linear in ``gy`` with ``x`` a fixed array."""

    _float_inputs = True
    _arg_names = ('gy',)

    def __init__(self, x: numpy.ndarray) -> None:
        self.x = x

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        gy, = inputs
        return (numpy.sign(self.x) * gy).astype(gy.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return AbsoluteGrad(self.x).apply(grad_outputs)


def absolute(x: VariableOrArray) -> Variable:
    """Elementwise absolute value, ``|x|`` (also ``abs(x)``).

    The gradient at 0 is 0 (the sign of 0).

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> F.absolute(np.array([-1.5, 2.0])).array
        array([1.5, 2. ])
    """
    return Absolute().apply((x,))[0]
