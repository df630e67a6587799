"""Exponential linear unit."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class ELU(function_node.FunctionNode):

    _float_inputs = True
    _arg_names = ('x',)

    def __init__(self, alpha: float = 1.0, scale: float = 1.0) -> None:
        # `scale` multiplies the whole output; selu is this node with Chainer's constants.
        self.alpha = alpha
        self.scale = scale

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        t = x.dtype.type
        # expm1 on min(x, 0): no overflow on the positive side, where it is not used.
        y = numpy.where(x > 0, x, t(self.alpha) * numpy.expm1(numpy.minimum(x, 0)))
        if self.scale != 1:
            y *= t(self.scale)
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        x = x.array
        t = x.dtype.type
        neg = x <= 0
        # For x <= 0, dy/dx = scale * alpha * exp(x) = y + scale * alpha; through y (a
        # Variable) the second derivative comes for free. For x > 0, dy/dx = scale.
        c = numpy.where(neg, t(self.scale * self.alpha), t(self.scale))
        return gy * (y * neg.astype(x.dtype) + c),


def elu(x: VariableOrArray, alpha: float = 1.0) -> Variable:
    """Exponential linear unit: ``x`` where ``x > 0``, ``alpha * (exp(x) - 1)`` elsewhere.

    Args:
        x: A float Variable or array.
        alpha: The parameter ``alpha`` (a scalar).

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.elu(np.array([-1.0, 0.0, 2.0])).array
        array([-0.63212056,  0.        ,  2.        ])
    """
    return ELU(alpha).apply((x,))[0]
