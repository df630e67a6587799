"""Elementwise subtraction: ``x - y`` (broadcasting), ``x - c`` and ``c - x``."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions.array import sum_to
from chainlite.functions.math import add

if TYPE_CHECKING:
    from chainlite.types import ScalarValue
    from chainlite.variable import Variable


class Sub(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return '_ - _'

    _elementwise = True
    _arg_names = ('lhs', 'rhs')

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x0, x1 = inputs
        return x0 - x1,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        return tuple([sum_to.sum_to(gy if i == 0 else -gy, in_nodes[i].shape)
                      for i in indexes])

    def _backward_arrays(self, indexes, grad_outputs, inputs, outputs):
        in_nodes = self._ins  # (two inputs: a tuple)
        gy, = grad_outputs
        return tuple([sum_to._sum_to_array(gy if i == 0 else -gy, in_nodes[i].shape)
                      for i in indexes])


class SubFromConstant(function_node.FunctionNode):

    def __init__(self, value: ScalarValue | numpy.ndarray) -> None:
        self.value = value

    @property
    def label(self) -> str:
        return '%s - _' % add._constant_label(self.value)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        return self.value - x,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, = grad_outputs
        return -gy,

    def _backward_arrays(self, indexes, grad_outputs, inputs, outputs):
        return -grad_outputs[0],
