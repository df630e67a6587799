"""Elementwise sine."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Sin(function_node.UfuncNode):

    @property
    def label(self) -> str:
        return 'sin'

    _ufunc = numpy.sin
    _input_indexes_to_retain = (0,)  # retain_inputs((0,)), declared once for the class

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return _SinGrad().apply((x, gy))

    def _backward_arrays(self, indexes, grad_outputs, inputs, outputs):
        return grad_outputs[0] * numpy.cos(inputs[0]),


class _SinGrad(function_node.FunctionNode):
    # gx = gy * cos(x) in one node: one op per backward step instead of two.

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        return gy * numpy.cos(x),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, gy = self.get_retained_inputs()
        g, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(_SinGradGrad().apply((x, gy, g))[0])
        if 1 in indexes:
            ret.append(_SinGrad().apply((x, g))[0])
        return tuple(ret)

    def _backward_arrays(self, indexes, grad_outputs, inputs, outputs):
        x, gy = inputs
        g, = grad_outputs
        return tuple([_sin_grad_grad(x, gy, g) if i == 0 else g * numpy.cos(x)
                      for i in indexes])


class _SinGradGrad(function_node.FunctionNode):
    # -g * gy * sin(x), _SinGrad's gradient for x, in one node: double backprop through sin
    # then costs one op instead of four.

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 2))
        x, gy, g = inputs
        return _sin_grad_grad(x, gy, g),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, gy, g = self.get_retained_inputs()
        h, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(-_SinGrad().apply((x, h * gy * g))[0])
            elif i == 1:
                ret.append(_SinGradGrad().apply((x, h, g))[0])
            else:
                ret.append(_SinGradGrad().apply((x, h, gy))[0])
        return tuple(ret)


def _sin_grad_grad(x, gy, g):
    # -gy * g * sin(x), in place on the new array (all three share one dtype and shape).
    y = numpy.negative(gy)
    y *= g
    y *= numpy.sin(x)
    return y


# Chainer's name for sin's gradient node, ``SinGrad().apply((x, gy))``: ``gy * cos(x)``.
SinGrad = _SinGrad


def sin(x: VariableOrArray) -> Variable:
    """Elementwise sine.

    Args:
        x: A float Variable or array (radians).

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> F.sin(np.array([0.0, np.pi / 2])).array
        array([0., 1.])
    """
    return function_node.apply_ufunc(Sin, x)
