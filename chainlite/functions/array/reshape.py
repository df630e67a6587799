"""Reshape without copying (a view, as NumPy gives)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy

from chainlite import function_node
from chainlite import variable
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import ShapeSpec, VariableOrArray


def _count_unknown_dims(shape: Any) -> int:
    # How many dimensions of ``shape`` are left to infer (negative).
    return _count_unknown(shape)


def _count_unknown(shape):
    return sum(1 for s in shape if s < 0)


class Reshape(function_node.FunctionNode):

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x, = in_types
        if _count_unknown(self.shape) == 0:
            type_check.expect(x.size == type_check.prod(self.shape))
        else:
            # s > 0: a 0 beside -1 (refused by reshape()) must not become `% 0` here.
            type_check.expect(x.size % type_check.prod([s for s in self.shape if s > 0]) == 0)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        return x.reshape(self.shape),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        return reshape(gy, in_nodes[0].shape),


def reshape(x: VariableOrArray, shape: ShapeSpec) -> Variable:
    """Gives a new shape to an array without changing its data.

    Args:
        x: A Variable or array.
        shape: The new shape; one entry may be -1 (inferred).

    Returns:
        A Variable (a view of ``x``'s data where NumPy gives a view).

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> F.reshape(np.arange(6.0), (2, -1)).shape
        (2, 3)
    """
    shp = cast(tuple[int, ...], tuple(shape) if isinstance(shape, (tuple, list)) else (shape,))
    if _count_unknown(shp) > 1:
        raise ValueError('reshape: only one dimension can be -1, got %s' % (shp,))
    if 0 in shp and _count_unknown(shp):
        raise ValueError('reshape: -1 cannot be inferred beside a 0, got %s' % (shp,))
    if getattr(x, 'shape', None) == shp:
        return variable.as_variable(x)
    return Reshape(shp).apply((x,))[0]
