"""Elementwise power: ``x ** y`` (broadcasting), ``x ** c`` and ``c ** x``."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions.array import sum_to
from chainlite.functions.math import _constant
from chainlite.functions.math import log

if TYPE_CHECKING:
    from chainlite.variable import Variable


class PowVarVar(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return '_ ** _'

    _float_inputs = True
    _elementwise = True
    _arg_names = ('lhs', 'rhs')

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        return x0 ** x1,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        x0, x1 = self.get_retained_inputs()
        ret = []
        if 0 in indexes:
            ret.append(sum_to.sum_to(gy * x1 * x0 ** (x1 - 1), in_nodes[0].shape))
        if 1 in indexes:
            ret.append(sum_to.sum_to(gy * log.log(x0) * x0 ** x1, in_nodes[1].shape))
        return tuple(ret)


class PowVarConst(_constant.ConstantOp):

    _label_format = '_ ** %s'
    _float_inputs = True

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return x ** self.value,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, = grad_outputs
        x, = self.get_retained_inputs()
        c = self.value
        if c == 2:
            return gy * 2 * x,
        return gy * c * x ** (c - 1),


class PowConstVar(_constant.ConstantOp):

    _label_format = '%s ** _'
    _float_inputs = True

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_outputs((0,))
        x, = inputs
        return self.value ** x,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, = grad_outputs
        y, = self.get_retained_outputs()
        return gy * y * y.dtype.type(numpy.log(self.value)),
