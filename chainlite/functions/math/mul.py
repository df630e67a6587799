"""Elementwise multiplication: ``x * y`` (broadcasting) and ``x * c``."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions.array import sum_to
from chainlite.functions.math import _constant

if TYPE_CHECKING:
    from chainlite.variable import Variable


class Mul(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return '_ * _'

    _float_inputs = True
    _elementwise = True
    _arg_names = ('lhs', 'rhs')

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        return x0 * x1,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        xs = self.get_retained_inputs()
        return tuple([sum_to.sum_to(gy * xs[1 - i], in_nodes[i].shape) for i in indexes])

    def _backward_arrays(self, indexes, grad_outputs, inputs, outputs):
        in_nodes = self._ins  # (two inputs: a tuple)
        gy, = grad_outputs
        return tuple([sum_to._sum_to_array(gy * inputs[1 - i], in_nodes[i].shape)
                      for i in indexes])


class MulConstant(_constant.ConstantOp):

    _label_format = '_ * %s'

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        return x * self.value,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, = grad_outputs
        return MulConstant(self.value)._apply1(gy),

    def _backward_arrays(self, indexes, grad_outputs, inputs, outputs):
        return grad_outputs[0] * self.value,

    def _jvp(self, tangents):
        # Forward-mode rule (chainlite.jvp): dy = c dx.
        return tangents[0] * self.value,

