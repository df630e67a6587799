"""Elementwise hard sigmoid, a piecewise-linear sigmoid."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class HardSigmoid(function_node.FunctionNode):

    _float_inputs = True
    _arg_names = ('x',)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.retain_inputs((0,))
        return numpy.clip(x * 0.2 + 0.5, 0, 1),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        x = x.array
        # Slope 0.2 strictly inside (-2.5, 2.5), 0 outside: a constant array keeps double
        # backprop exact.
        slope = ((x > -2.5) & (x < 2.5)).astype(x.dtype)
        slope *= 0.2
        return gy * slope,


class HardSigmoidGrad(function_node.FunctionNode):
    """Hard sigmoid's gradient ``0.2 * gy`` inside ``(-2.5, 2.5)``, 0 outside, as a node.

    Chainer's ``HardSigmoidGrad(x).apply((gy,))``; linear in ``gy``, so its own backward.

    Args:
        x: The input array of the hard sigmoid.
    """

    _float_inputs = True
    _arg_names = ('gy',)

    def __init__(self, x: numpy.ndarray) -> None:
        self.x = x

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        gy, = inputs
        if gy.dtype != self.x.dtype:
            raise TypeError('%s: gy must have the dtype of x (%s), got %s'
                            % (self.label, self.x.dtype, gy.dtype))
        inside = (self.x > -2.5) & (self.x < 2.5)
        return (inside * gy * 0.2).astype(self.x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return HardSigmoidGrad(self.x).apply(grad_outputs)


def hard_sigmoid(x: VariableOrArray) -> Variable:
    """Elementwise hard sigmoid: ``clip(0.2 * x + 0.5, 0, 1)``.

    The gradient is 0.2 on the open interval ``(-2.5, 2.5)`` and 0 elsewhere.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype, with values in [0, 1].

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.hard_sigmoid(np.array([-3.0, 0.0, 1.0, 3.0])).array
        array([0. , 0.5, 0.7, 1. ])
    """
    return HardSigmoid().apply((x,))[0]
