"""Sum an array down to a shape: the transpose of broadcasting."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import function_node
from chainlite import variable
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _sum_to_array(x, shape):
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and x.shape[lead + i] != 1)
    y = x.sum(axis=axes, keepdims=True) if axes else x
    return y.reshape(shape) if lead else y


class SumTo(function_node.FunctionNode):

    def __init__(self, shape: tuple[int, ...]) -> None:
        self._shape = shape

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x, = in_types
        ndim = len(self._shape)
        type_check.expect(x.ndim >= ndim)
        for i in range(-1, -ndim - 1, -1):
            if self._shape[i] != 1:
                type_check.expect(x.shape[i] == self._shape[i])

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        return _sum_to_array(x, self._shape),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        from chainlite.functions.array import broadcast
        gy, = grad_outputs
        return broadcast.broadcast_to(gy, in_nodes[0].shape),


def sum_to(x: VariableOrArray, shape: Sequence[int]) -> Variable:
    """Sums the elements of ``x`` so that the result has the given shape.

    The reverse of :func:`broadcast_to`: leading axes are summed away and axes of length 1
    in ``shape`` are summed with ``keepdims``.

    Args:
        x: A Variable or array.
        shape: The target shape; ``x`` must be broadcastable from it.

    Returns:
        A Variable of shape ``shape`` (``x`` itself if it already has that shape).

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> F.sum_to(np.ones((2, 3)), (1, 3)).array
        array([[2., 2., 2.]])
    """
    shape = tuple(shape)
    if x.shape == shape:
        return variable.as_variable(x)
    return SumTo(shape).apply((x,))[0]
