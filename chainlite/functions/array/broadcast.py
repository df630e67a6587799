"""Broadcasting by NumPy's rules: to a shape, or arrays against each other (read-only views)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence, overload

import numpy

from chainlite import function_node
from chainlite import variable
from chainlite.functions.array import sum_to
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class BroadcastTo(function_node.FunctionNode):

    def __init__(self, shape: tuple[int, ...]) -> None:
        self._shape = shape

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x, = in_types
        ndim = len(self._shape)
        type_check.expect(x.ndim <= ndim)
        for i in range(-1, -ndim - 1, -1):
            if i < -len(type_check.eval(x.shape)):
                break
            type_check.expect((x.shape[i] == 1) | (x.shape[i] == self._shape[i]))

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        return numpy.broadcast_to(x, self._shape),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        return sum_to.sum_to(gy, in_nodes[0].shape),


def broadcast_to(x: VariableOrArray, shape: Sequence[int]) -> Variable:
    """Broadcasts ``x`` to ``shape`` by NumPy's rules.

    Args:
        x: A Variable or array.
        shape: The target shape.

    Returns:
        A Variable; its gradient sums over the broadcast axes.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> F.broadcast_to(np.array([1.0, 2.0]), (2, 2)).array
        array([[1., 2.],
               [1., 2.]])
    """
    shape = tuple(shape)
    if getattr(x, 'shape', None) == shape:
        return variable.as_variable(x)
    return BroadcastTo(shape).apply((x,))[0]


class Broadcast(function_node.FunctionNode):

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)
        type_check.expect_broadcast_shapes(*[t.shape for t in in_types])

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        return tuple(numpy.broadcast_arrays(*inputs))

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        return tuple([None if grad_outputs[i] is None
                      else sum_to.sum_to(grad_outputs[i], in_nodes[i].shape)
                      for i in indexes])


@overload
def broadcast(x: VariableOrArray, /) -> Variable: ...


@overload
def broadcast(x: VariableOrArray, y: VariableOrArray, /,
              *args: VariableOrArray) -> tuple[Variable, ...]: ...


def broadcast(*args: VariableOrArray) -> Variable | tuple[Variable, ...]:
    """Broadcasts the given Variables or arrays against each other, by NumPy's rules.

    Args:
        *args: Variables or arrays whose shapes broadcast together (dtypes may differ).

    Returns:
        A tuple of Variables of the common shape, one per argument; a single argument is
        returned alone, as a Variable. Each gradient sums over its broadcast axes.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> y, z = F.broadcast(np.array([1.0, 2.0]), np.zeros((2, 1)))
        >>> y.array
        array([[1., 2.],
               [1., 2.]])
        >>> z.shape
        (2, 2)
    """
    if len(args) == 1:
        return variable.as_variable(args[0])
    return Broadcast().apply(args)
