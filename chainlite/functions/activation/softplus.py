"""Elementwise softplus, a smooth rectifier."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions.activation import sigmoid

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class Softplus(function_node.FunctionNode):

    _float_inputs = True
    _arg_names = ('x',)

    def __init__(self, beta: float = 1.0) -> None:
        self.beta = beta

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.retain_inputs((0,))
        t = x.dtype.type
        bx = x * t(self.beta)
        # log(1 + exp(bx)) = max(bx, 0) + log1p(exp(-|bx|)): exp never overflows, and the
        # small term keeps its precision for large |bx|.
        y = numpy.maximum(bx, 0) + numpy.log1p(numpy.exp(-abs(bx)))
        return y * t(1 / self.beta),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        # dy/dx = sigmoid(beta * x), differentiable again through sigmoid's own node.
        return gy * sigmoid.sigmoid(x * x.dtype.type(self.beta)),


class SoftplusGrad(function_node.FunctionNode):
    """Softplus's gradient ``gy * sigmoid(beta * x)`` as Chainer's ``SoftplusGrad((beta,))``.

    Applied to ``(x, gy)``.

    Args:
        inputs: A one-element tuple ``(beta,)``.
    """

    def __init__(self, inputs: tuple[float, ...]) -> None:
        self.beta = inputs[0]

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        bx = x * x.dtype.type(self.beta)
        return (gy * (numpy.tanh(bx * 0.5) * 0.5 + 0.5)).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        s = sigmoid.sigmoid(x * x.dtype.type(self.beta))
        ret = []
        if 0 in indexes:
            ret.append(ggx * gy * self.beta * (s - s * s))
        if 1 in indexes:
            ret.append(SoftplusGrad((self.beta,)).apply((x, ggx))[0])
        return tuple(ret)


def softplus(x: VariableOrArray, beta: float = 1.0) -> Variable:
    """Elementwise softplus, ``log(1 + exp(beta * x)) / beta``, computed stably.

    Args:
        x: A float Variable or array.
        beta: The parameter ``beta`` (a nonzero scalar); larger values bring the curve
            closer to ``max(0, x)``.

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.softplus(np.array([-2.0, 0.0, 2.0])).array
        array([0.12692801, 0.69314718, 2.12692801])
    """
    return Softplus(beta).apply((x,))[0]
