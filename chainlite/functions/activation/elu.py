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


class ELUGrad(function_node.FunctionNode):
    """ELU's derivative from its output, as Chainer's node ``ELUGrad(alpha, cond)``.

    Applied to ``(y,)`` it gives ``1`` where ``cond > 0`` and ``y + alpha`` elsewhere (the
    derivative of ``alpha * expm1(x)`` written with ``y``); Chainer multiplies it by ``gy``.

    Args:
        alpha: ELU's ``alpha``.
        cond: The array whose sign picks the branch (ELU's input, or its output when
            ``alpha >= 0``).
    """

    def __init__(self, alpha: float, cond: numpy.ndarray) -> None:
        self.alpha = alpha
        self.cond = cond

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        y, = inputs
        t = y.dtype.type
        return numpy.where(self.cond > 0, t(1), y + t(self.alpha)),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        ggx, = grad_outputs
        return ggx * (self.cond <= 0).astype(ggx.dtype),


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
