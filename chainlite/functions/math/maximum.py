"""Elementwise maximum of two inputs."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions.array import sum_to

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Maximum(function_node.FunctionNode):

    _float_inputs = True
    _elementwise = True
    _arg_names = ('x1', 'x2')

    # Minimum overrides these two.
    def _select(self, x1, x2):
        return numpy.maximum(x1, x2)

    def _x1_selected(self, x1, x2):
        # Ties go to x1.
        return x1 >= x2

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x1, x2 = inputs
        return self._select(x1, x2),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        x1, x2 = self.get_retained_inputs()
        gy, = grad_outputs
        # The choice is piecewise constant: constant masks keep double backprop exact.
        first = self._x1_selected(x1.array, x2.array)
        dtype = gy.dtype
        ret = []
        if 0 in indexes:
            ret.append(sum_to.sum_to(gy * first.astype(dtype), in_nodes[0].shape))
        if 1 in indexes:
            ret.append(sum_to.sum_to(gy * (~first).astype(dtype), in_nodes[1].shape))
        return tuple(ret)


class MaximumGrad(function_node.FunctionNode):
    """maximum's gradient node (Chainer's): ``MaximumGrad(x1, x2).apply((gy,))`` sends ``gy``
    to ``x1`` where ``x1 >= x2`` and to ``x2`` elsewhere, each part summed to its input's
    shape; ``x1`` and ``x2`` are the forward's input arrays."""

    _float_inputs = True
    _arg_names = ('gy',)

    def __init__(self, x1: numpy.ndarray, x2: numpy.ndarray) -> None:
        self.cond = self._x1_selected(x1, x2)
        self.x1_shape = x1.shape
        self.x2_shape = x2.shape

    def _x1_selected(self, x1, x2):
        return x1 >= x2

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        gy, = inputs
        zero = gy.dtype.type(0)
        return (sum_to._sum_to_array(numpy.where(self.cond, gy, zero), self.x1_shape),
                sum_to._sum_to_array(numpy.where(self.cond, zero, gy), self.x2_shape))

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        ggx1, ggx2 = grad_outputs
        ggy: Any = None
        for gg, mask in ((ggx1, self.cond), (ggx2, ~self.cond)):
            if gg is not None:
                # A constant mask: the selection is piecewise constant.
                term = gg * mask.astype(gg.dtype)
                ggy = term if ggy is None else ggy + term
        return ggy,


def maximum(x1: VariableOrArray, x2: VariableOrArray) -> Variable:
    """Elementwise maximum of two inputs, which broadcast against each other by NumPy's rules.

    Where the inputs are equal, the whole gradient goes to ``x1``.

    Args:
        x1: A float Variable or array.
        x2: A Variable or array of the same dtype, broadcastable with ``x1``.

    Returns:
        A Variable of the broadcast shape and the inputs' dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.maximum(np.array([1.0, 5.0, 3.0]), np.array([4.0, 2.0, 3.0])).array
        array([4., 5., 3.])
    """
    return Maximum().apply((x1, x2))[0]
