"""Elementwise hyperbolic tangent."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class Tanh(function_node.UfuncNode):

    _ufunc = numpy.tanh
    _output_indexes_to_retain = (0,)  # retain_outputs((0,)), declared once for the class

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        return _TanhGrad().apply((y, gy))

    def _jvp(self, tangents):
        # Forward-mode rule (chainlite.jvp): dy = (1 - y^2) dx, from the retained output.
        assert self._retained_output_data is not None
        y, = self._retained_output_data
        return tangents[0] * (1 - y * y),

    def _backward_arrays(self, indexes, grad_outputs, inputs, outputs):
        return grad_outputs[0] * (1 - outputs[0] * outputs[0]),  # _TanhGrad's arithmetic



class _TanhGrad(function_node.FunctionNode):
    # gx = gy * (1 - y^2) in one node: one op per backward step instead of three.

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        y, gy = inputs
        return gy * (1 - y * y),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        y, gy = self.get_retained_inputs()
        g, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(-2 * y * gy * g)
        if 1 in indexes:
            ret.append(_TanhGrad().apply((y, g))[0])
        return tuple(ret)

    def _backward_arrays(self, indexes, grad_outputs, inputs, outputs):
        y, gy = inputs
        g, = grad_outputs
        return tuple([-2 * y * gy * g if i == 0 else g * (1 - y * y) for i in indexes])


class TanhGrad(_TanhGrad):
    """Tanh's gradient ``gy * (1 - y * y)`` as Chainer's node ``TanhGrad(x)``.

    Applied to ``(y, gy)``; ``x`` (tanh's input, or None) is what Chainer's cuDNN path
    reads, kept here as ``self.x``.

    Args:
        x: Tanh's input array, or None.
    """

    def __init__(self, x: numpy.ndarray | None) -> None:
        super().__init__()
        self.x = x


def tanh(x: VariableOrArray) -> Variable:
    """Elementwise hyperbolic tangent.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype, with values in (-1, 1).

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> F.tanh(np.array([0.0])).array
        array([0.])
    """
    return function_node.apply_ufunc(Tanh, x)
