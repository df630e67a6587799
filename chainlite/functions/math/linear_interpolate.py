"""Elementwise linear interpolation, ``p * x + (1 - p) * y``."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions.array import sum_to

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class LinearInterpolate(function_node.FunctionNode):

    _float_inputs = True
    _elementwise = True
    _arg_names = ('p', 'x', 'y')

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 2))
        p, x, y = inputs
        return p * x + (1 - p) * y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        p, x, y = self.get_retained_inputs()
        g, = grad_outputs
        shapes = [n.shape for n in in_nodes]
        pg: Any = p * g if 1 in indexes or 2 in indexes else None
        ret = []
        if 0 in indexes:
            ret.append(sum_to.sum_to((x - y) * g, shapes[0]))
        if 1 in indexes:
            ret.append(sum_to.sum_to(pg, shapes[1]))
        if 2 in indexes:
            ret.append(sum_to.sum_to(g - pg, shapes[2]))
        return tuple(ret)


class LinearInterpolateGrad(function_node.FunctionNode):
    """linear_interpolate's gradient node (Chainer's):
    ``LinearInterpolateGrad().apply((p, x, y, gz))`` is ``((x - y) * gz, p * gz,
    (1 - p) * gz)``, each summed to its input's shape."""

    _float_inputs = True
    _elementwise = True
    _arg_names = ('p', 'x', 'y', 'gz')

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 2, 3))
        p, x, y, gz = inputs
        pg = p * gz
        return (sum_to._sum_to_array((x - y) * gz, p.shape),
                sum_to._sum_to_array(pg, x.shape),
                sum_to._sum_to_array(gz - pg, y.shape))

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        p, x, y, gz = self.get_retained_inputs()
        xp = backend.get_array_module(gz.array)
        ggp, ggx, ggy = [xp.zeros(v.shape, v.dtype) if g is None else g
                         for g, v in zip(grad_outputs, (p, x, y))]
        grads = {0: gz * (ggx - ggy), 1: gz * ggp, 2: -gz * ggp,
                 3: (x - y) * ggp + p * ggx + (1 - p) * ggy}
        shapes = (p.shape, x.shape, y.shape, gz.shape)
        return tuple([sum_to.sum_to(grads[i], shapes[i]) for i in indexes])


def linear_interpolate(p: VariableOrArray, x: VariableOrArray, y: VariableOrArray) -> Variable:
    """Elementwise linear interpolation between ``y`` (at ``p = 0``) and ``x`` (at ``p = 1``).

    Computes ``p * x + (1 - p) * y``. Unlike Chainer, which requires equal shapes, the three
    inputs may broadcast against each other by NumPy's rules.

    Args:
        p: A float Variable or array: the weights of ``x``.
        x: A Variable or array of the same dtype.
        y: A Variable or array of the same dtype.

    Returns:
        A Variable of the broadcast shape and the inputs' dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.linear_interpolate(np.array([0.0, 0.25, 1.0]), np.full(3, 10.0), np.zeros(3)).array
        array([ 0. ,  2.5, 10. ])
    """
    return LinearInterpolate().apply((p, x, y))[0]
