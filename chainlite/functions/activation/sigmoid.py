"""Elementwise logistic sigmoid."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class Sigmoid(function_node.FunctionNode):

    _float_inputs = True
    _arg_names = ('x',)

    _output_indexes_to_retain = (0,)  # retain_outputs((0,)), declared once for the class

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        # 1 / (1 + exp(-x)) written through tanh: no overflow for large |x|, and the dtype
        # of x is kept (Python-float constants are weak under NumPy 2).
        return numpy.tanh(x * 0.5) * 0.5 + 0.5,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        return _SigmoidGrad().apply((y, gy))

    def _jvp(self, tangents):
        # Forward-mode rule (chainlite.jvp): dy = y (1 - y) dx, from the retained output.
        assert self._retained_output_data is not None
        y, = self._retained_output_data
        return tangents[0] * y * (1 - y),

    def _backward_arrays(self, indexes, grad_outputs, inputs, outputs):
        y = outputs[0]
        return grad_outputs[0] * y * (1 - y),  # _SigmoidGrad's arithmetic



class _SigmoidGrad(function_node.FunctionNode):
    # gx = gy * y * (1 - y) in one node: one op per backward step instead of three.

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        y, gy = inputs
        return gy * y * (1 - y),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        y, gy = self.get_retained_inputs()
        g, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(g * gy * (1 - 2 * y))
        if 1 in indexes:
            ret.append(_SigmoidGrad().apply((y, g))[0])
        return tuple(ret)


class SigmoidGrad(_SigmoidGrad):
    """Sigmoid's gradient ``gy * y * (1 - y)`` as Chainer's node ``SigmoidGrad((x,))``.

    Applied to ``(y, gy)``; ``x`` (the sigmoid's input, or None) is what Chainer's cuDNN
    path reads, kept here as ``self.x``.

    Args:
        inputs: A one-element tuple ``(x,)``.
    """

    def __init__(self, inputs: tuple[Any, ...]) -> None:
        super().__init__()
        self.x = inputs[0]


def sigmoid(x: VariableOrArray) -> Variable:
    """Elementwise logistic sigmoid, ``1 / (1 + exp(-x))``.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype, with values in (0, 1).

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.sigmoid(np.array([-1.0, 0.0, 1.0])).array
        array([0.26894142, 0.5       , 0.73105858])
    """
    return Sigmoid()._apply1(x)
