"""The identity function: inputs returned unchanged, as new nodes of the graph."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, overload

import numpy

from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Identity(function_node.FunctionNode):

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        return inputs

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return tuple([grad_outputs[i] for i in indexes])


@overload
def identity(x: VariableOrArray, /) -> Variable: ...


@overload
def identity(x0: VariableOrArray, x1: VariableOrArray, /,
             *inputs: VariableOrArray) -> tuple[Variable, ...]: ...


def identity(*inputs: VariableOrArray) -> Variable | tuple[Variable, ...]:
    """Returns the inputs unchanged, as new Variables whose gradients pass straight through.

    Useful to give an input a node of its own in the graph (e.g. to hook it).

    Args:
        *inputs: Variables or arrays, of any shapes and dtypes.

    Returns:
        A Variable sharing the array of the single input, or a tuple of such Variables when
        several inputs are given.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.identity(np.array([1.0, 2.0])).array
        array([1., 2.])
        >>> y, z = F.identity(np.zeros(2), np.ones(3))
        >>> z.shape
        (3,)
    """
    ret = Identity().apply(inputs)
    return ret[0] if len(ret) == 1 else ret
