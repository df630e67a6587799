"""Elementwise squared difference, ``(x1 - x2) ** 2``."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions.array import sum_to

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class SquaredDifference(function_node.FunctionNode):

    _float_inputs = True
    _elementwise = True
    _arg_names = ('x1', 'x2')

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x1, x2 = inputs
        d = x1 - x2
        return d * d,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        x1, x2 = self.get_retained_inputs()
        gy, = grad_outputs
        gx = gy * (x1 - x2) * 2
        ret = []
        if 0 in indexes:
            ret.append(sum_to.sum_to(gx, in_nodes[0].shape))
        if 1 in indexes:
            ret.append(sum_to.sum_to(-gx, in_nodes[1].shape))
        return tuple(ret)


def squared_difference(x1: VariableOrArray, x2: VariableOrArray) -> Variable:
    """Elementwise squared difference of two inputs, ``(x1 - x2) ** 2``.

    Unlike Chainer, which requires equal shapes, the inputs may broadcast against each other
    by NumPy's rules; each gradient is summed back to its input's shape.

    Args:
        x1: A float Variable or array.
        x2: A Variable or array of the same dtype, broadcastable with ``x1``.

    Returns:
        A Variable of the broadcast shape and the inputs' dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.squared_difference(np.array([1.0, 2.0]), np.array([3.0, -1.0])).array
        array([4., 9.])
    """
    return SquaredDifference().apply((x1, x2))[0]
