"""Elementwise addition: ``x + y`` (broadcasting) and ``x + c`` for a constant ``c``."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions.array import sum_to

if TYPE_CHECKING:
    from chainlite.types import ScalarValue, VariableOrArray
    from chainlite.variable import Variable


class Add(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return '_ + _'

    _elementwise = True
    _arg_names = ('lhs', 'rhs')

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x0, x1 = inputs
        return x0 + x1,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        return tuple([sum_to.sum_to(gy, in_nodes[i].shape) for i in indexes])

    def _backward_arrays(self, indexes, grad_outputs, inputs, outputs):
        in_nodes = self._ins  # (two inputs: a tuple)
        gy, = grad_outputs
        return tuple([sum_to._sum_to_array(gy, in_nodes[i].shape) for i in indexes])


class AddConstant(function_node.FunctionNode):

    def __init__(self, value: ScalarValue | numpy.ndarray) -> None:
        self.value = value

    @property
    def label(self) -> str:
        return '_ + %s' % _constant_label(self.value)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        return x + self.value,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return grad_outputs

    def _backward_arrays(self, indexes, grad_outputs, inputs, outputs):
        return grad_outputs

    def _jvp(self, tangents):
        # Forward-mode rule (chainlite.jvp): a constant shift does not change the tangent.
        return tangents



def _constant_label(value):
    # Chainer's labels put negative constants in parentheses: '_ * (-2)'.
    text = str(value)
    return '(%s)' % text if text.startswith('-') else text


class MultiAdd(function_node.FunctionNode):
    """The sum of any number of inputs in one node (Chainer's, for ``F.add(x0, x1, x2,
    ...)``): ``MultiAdd().apply(xs)``, broadcasting as NumPy does; each input's gradient is
    the output's summed to its shape."""

    _elementwise = True

    @property
    def label(self) -> str:
        return 'MultiAdd'

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        if len(inputs) == 1:
            return inputs
        y = inputs[0] + inputs[1]  # a new array: the rest add into it in place where they fit
        for x in inputs[2:]:
            if x.shape == y.shape:
                y += x
            else:
                y = y + x
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        return tuple([sum_to.sum_to(gy, in_nodes[i].shape) for i in indexes])


def add(*xs: VariableOrArray) -> Variable:
    """Elementwise sum of any number of variables (broadcasting as NumPy does).

    Args:
        *xs: Variables or arrays of one dtype and broadcastable shapes.

    Returns:
        The sum as a Variable.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> F.add(np.array([1.0]), np.array([2.0]), np.array([3.0])).array
        array([6.])
    """
    if not xs:
        raise TypeError('add() needs at least one input')
    if len(xs) == 1:
        from chainlite import variable
        return variable.as_variable(xs[0])
    y, = Add().apply((xs[0], xs[1]))
    for x in xs[2:]:
        y, = Add().apply((y, x))
    return y
