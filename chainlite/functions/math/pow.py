"""Elementwise power: ``x ** y`` (broadcasting), ``x ** c`` and ``c ** x``."""
from __future__ import annotations

import math
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


class PowVarVarGrad(function_node.FunctionNode):
    """The gradient node of ``x0 ** x1`` (Chainer's): ``PowVarVarGrad(is_elementwise,
    y).apply((x0, x1, gy))`` is ``(x1 * x0 ** (x1 - 1) * gy, log(x0) * y * gy)``, each summed
    to its input's shape.

    Args:
        is_elementwise: Whether ``x0`` and ``x1`` have one shape (Chainer's hint for its
            graph optimizations; the result does not depend on it).
        y: The forward output ``x0 ** x1`` (an array).
    """

    _float_inputs = True
    _arg_names = ('lhs', 'rhs', 'gy')

    def __init__(self, is_elementwise: bool, y: numpy.ndarray) -> None:
        self.is_elementwise = is_elementwise
        self.y = y

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 2))
        x0, x1, gy = inputs
        gx0 = x1 * x0 ** (x1 - 1) * gy
        gx1 = numpy.log(x0) * self.y * gy
        return (sum_to._sum_to_array(gx0, x0.shape).astype(x0.dtype, copy=False),
                sum_to._sum_to_array(gx1, x1.shape).astype(x1.dtype, copy=False))

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x0, x1, gy = self.get_retained_inputs()
        ggx0, ggx1 = grad_outputs
        log_x0 = log.log(x0)
        p1 = x0 ** (x1 - 1)
        # d/dx0 and d/dx1 of g0 = x1 x0^(x1-1) gy and g1 = log(x0) x0^x1 gy.
        cross = p1 * (log_x0 * x1 + 1)  # d g0/dx1 = d g1/dx0, over gy
        terms: list[list[Any]] = [[], [], []]
        if ggx0 is not None:
            terms[0].append(ggx0 * x1 * (x1 - 1) * x0 ** (x1 - 2) * gy)
            terms[1].append(ggx0 * cross * gy)
            terms[2].append(ggx0 * x1 * p1)
        if ggx1 is not None:
            p = x0 ** x1
            terms[0].append(ggx1 * cross * gy)
            terms[1].append(ggx1 * log_x0 * log_x0 * p * gy)
            terms[2].append(ggx1 * log_x0 * p)
        shapes = (x0.shape, x1.shape, gy.shape)
        ret: list[Any] = []
        for i in indexes:
            if not terms[i]:
                ret.append(None)
                continue
            total = terms[i][0]
            for t in terms[i][1:]:
                total = total + t
            ret.append(sum_to.sum_to(total, shapes[i]))
        return tuple(ret)


class PowVarConstGrad(function_node.FunctionNode):
    """The gradient node of ``x ** value`` (Chainer's): ``PowVarConstGrad(value).apply((x,
    gy))`` is ``value * x ** (value - 1) * gy``."""

    _float_inputs = True
    _elementwise = True
    _arg_names = ('x', 'gy')

    def __init__(self, value: Any) -> None:
        self.value = value

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        c = x.dtype.type(self.value)
        return (c * x ** (c - 1) * gy).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, gy = self.get_retained_inputs()
        g, = grad_outputs
        c = self.value
        ret = []
        if 0 in indexes:
            ret.append(g * gy * c * (c - 1) * x ** (c - 2))
        if 1 in indexes:
            ret.append(g * c * x ** (c - 1))
        return tuple(ret)


class PowConstVarGrad(function_node.FunctionNode):
    """The gradient node of ``value ** x`` (Chainer's): ``PowConstVarGrad(value).apply((y,
    gy))``, from the forward output ``y``, is ``log(value) * y * gy``."""

    _float_inputs = True
    _elementwise = True
    _arg_names = ('y', 'gy')

    def __init__(self, value: Any) -> None:
        self.value = value
        self.log_value = math.log(value)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        y, gy = inputs
        return (y.dtype.type(self.log_value) * y * gy).astype(y.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        y, gy = self.get_retained_inputs()
        g, = grad_outputs
        gg = g * self.log_value
        ret = []
        if 0 in indexes:
            ret.append(gg * gy)
        if 1 in indexes:
            ret.append(gg * y)
        return tuple(ret)
