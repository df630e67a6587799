"""Cumulative sum along an axis."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions import _axis
from chainlite.functions.array import get_item
from chainlite.functions.array import reshape
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def _check_axis(axis, ndim, label):
    # One axis or None (the flattened array), as Chainer; a tuple is a TypeError.
    if isinstance(axis, (tuple, list)):
        raise TypeError('%s: axis must be None or an int, got %r' % (label, axis))
    return _axis.normalize_axis(axis, max(ndim, 1) if axis is None else ndim, label)


def _flip(x, axis):
    # A reversed view along `axis`; differentiable through get_item.
    return get_item.get_item(x, (slice(None),) * axis + (slice(None, None, -1),))


def reverse_cumsum(x: VariableOrArray, axis: int) -> Variable:
    """``sum(x[k:])`` along ``axis`` for every ``k``: the transpose of a cumulative sum."""
    return _flip(cumsum(_flip(x, axis), axis), axis)


class Cumsum(function_node.FunctionNode):

    def __init__(self, axis: int | None = None) -> None:
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.axis = _check_axis(self.axis, x.ndim, self.label)
        return x.cumsum(axis=self.axis),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        gx = reverse_cumsum(gy, 0 if self.axis is None else self.axis)
        if self.axis is None:
            gx = reshape.reshape(gx, in_nodes[0].shape)
        return gx,


def cumsum(x: VariableOrArray, axis: int | None = None) -> Variable:
    """Cumulative sum of elements along an axis.

    Args:
        x: A float Variable or array.
        axis: An int, or None to sum over the flattened array (the result is then 1-D).

    Returns:
        A Variable of the same dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.cumsum(np.array([[1.0, 2.0], [3.0, 4.0]]), axis=1).array
        array([[1., 3.],
               [3., 7.]])
    """
    return Cumsum(axis).apply((x,))[0]
