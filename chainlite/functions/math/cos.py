"""Elementwise cosine."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Cos(function_node.UfuncNode):

    @property
    def label(self) -> str:
        return 'cos'

    _ufunc = numpy.cos
    _input_indexes_to_retain = (0,)  # retain_inputs((0,)), declared once for the class

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        from chainlite.functions.math import sin
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return -sin.sin(x) * gy,

    def _backward_arrays(self, indexes, grad_outputs, inputs, outputs):
        return -numpy.sin(inputs[0]) * grad_outputs[0],


class CosGrad(function_node.FunctionNode):
    """Cosine's gradient node (Chainer's name): ``CosGrad().apply((x, gy))`` is
    ``-gy * sin(x)``."""

    _float_inputs = True
    _elementwise = True
    _arg_names = ('x', 'gy')

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        return -numpy.sin(x) * gy,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, gy = self.get_retained_inputs()
        g, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(-cos(x) * gy * g)
        if 1 in indexes:
            ret.append(CosGrad().apply((x, g))[0])
        return tuple(ret)


def cos(x: VariableOrArray) -> Variable:
    """Elementwise cosine.

    Args:
        x: A float Variable or array (radians).

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> F.cos(np.array([0.0, np.pi])).array
        array([ 1., -1.])
    """
    return function_node.apply_ufunc(Cos, x)
