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


class DivGrad(function_node.FunctionNode):
    """The gradient node of ``x0 / x1`` (Chainer's): ``DivGrad(is_elementwise).apply((x0, x1,
    gy))`` is ``(gy / x1, -gy * x0 / x1 ** 2)``, each summed to its input's shape.

    Args:
        is_elementwise: Whether ``x0`` and ``x1`` have one shape (Chainer's hint for its
            graph optimizations; the result does not depend on it).
    """

    _float_inputs = True
    _arg_names = ('x0', 'x1', 'gy')

    def __init__(self, is_elementwise: bool) -> None:
        self.is_elementwise = is_elementwise

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 2))
        x0, x1, gy = inputs
        gx0 = gy / x1
        return (sum_to._sum_to_array(gx0, x0.shape).astype(x0.dtype, copy=False),
                sum_to._sum_to_array(-gx0 * x0 / x1, x1.shape).astype(x1.dtype, copy=False))

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x0, x1, gy = self.get_retained_inputs()
        ggx0, ggx1 = grad_outputs
        # g0 = gy / x1 and g1 = -gy x0 / x1^2, differentiated and weighted by ggx0, ggx1.
        terms: list[list[Any]] = [[], [], []]
        if ggx0 is not None:
            terms[1].append(-ggx0 * gy / (x1 * x1))
            terms[2].append(ggx0 / x1)
        if ggx1 is not None:
            terms[0].append(-ggx1 * gy / (x1 * x1))
            terms[1].append(ggx1 * gy * x0 * 2 / (x1 * x1 * x1))
            terms[2].append(-ggx1 * x0 / (x1 * x1))
        shapes = (x0.shape, x1.shape, gy.shape)
        return tuple(sum_to.sum_to(_total(terms[i]), shapes[i]) if terms[i] else None
                     for i in indexes)


def _total(terms):
    y = terms[0]
    for t in terms[1:]:
        y = y + t
    return y


class DivFromConstantGrad(function_node.FunctionNode):
    """The gradient node of ``value / x`` (Chainer's): ``DivFromConstantGrad(value).apply((x,
    gy))`` is ``-value * gy / x ** 2``."""

    _float_inputs = True
    _elementwise = True
    _arg_names = ('x', 'gy')

    def __init__(self, value: Any) -> None:
        self.value = value

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        return (-self.value * gy / (x * x)).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, gy = self.get_retained_inputs()
        g, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(g * gy * self.value * 2 / (x * x * x))
        if 1 in indexes:
            ret.append(DivFromConstantGrad(self.value).apply((x, g))[0])
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
