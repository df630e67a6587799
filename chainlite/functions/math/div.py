"""Elementwise division: ``x / y`` (broadcasting), ``x / c`` and ``c / x``."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions.array import sum_to
from chainlite.functions.math import _constant

if TYPE_CHECKING:
    from chainlite.variable import Variable


class Div(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return '_ / _'

    _float_inputs = True
    _elementwise = True
    _arg_names = ('lhs', 'rhs')

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        return x0 / x1,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        x0, x1 = self.get_retained_inputs()
        gx0 = gy / x1
        ret = []
        if 0 in indexes:
            ret.append(sum_to.sum_to(gx0, in_nodes[0].shape))
        if 1 in indexes:
            ret.append(sum_to.sum_to(-gx0 * x0 / x1, in_nodes[1].shape))
        return tuple(ret)


class DivFromConstant(_constant.ConstantOp):

    _label_format = '%s / _'
    _float_inputs = True

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return self.value / x,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, = grad_outputs
        x, = self.get_retained_inputs()
        return gy * (-self.value) / (x * x),
