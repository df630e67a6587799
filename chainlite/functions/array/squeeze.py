"""Remove axes of length 1 (a view, as NumPy gives)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence, cast

import numpy

from chainlite import function_node
from chainlite.functions import _axis
from chainlite.functions.array import reshape
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def argone(iterable: Any) -> list[int]:
    """The positions of the 1s in a shape: the axes :func:`squeeze` removes by default.

    Args:
        iterable: A sequence of ints (a shape).

    Returns:
        A list of the indices whose value is 1.

    Raises:
        ValueError: If an element is not an int.

    Example:
        >>> from chainlite.functions.array.squeeze import argone
        >>> argone((1, 3, 1))
        [0, 2]
    """
    result = []
    for i, x in enumerate(iterable):
        if not _is_int(x):
            raise ValueError('elements in iterable must be int')
        if x == 1:
            result.append(i)
    return result


def _is_int(a):
    return isinstance(a, (int, numpy.integer)) and not isinstance(a, bool)


class Squeeze(function_node.FunctionNode):

    def __init__(self, axis: tuple[int, ...] | None = None) -> None:
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x, = in_types
        if self.axis is None:
            return
        ndim = type_check.eval(x.ndim)
        for a in self.axis:
            # Non-integers and axes out of range are left to normalize_axes in forward.
            if _is_int(a) and -ndim <= a < ndim:
                type_check.expect(x.shape[int(a)] == 1)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        axis = _axis.normalize_axes(self.axis, x.ndim, self.label)
        return x.squeeze(axis),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        return reshape.reshape(gy, in_nodes[0].shape),


def squeeze(x: VariableOrArray, axis: int | Sequence[int] | None = None) -> Variable:
    """Removes axes of length 1 from the shape of ``x``.

    Args:
        x: A Variable or array.
        axis: None to remove every axis of length 1, or an int or a tuple of ints (negative
            values count from the end) naming axes of length 1 to remove.

    Returns:
        A Variable (a view of ``x``'s data).

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.zeros((2, 1, 1, 3))
        >>> F.squeeze(x).shape
        (2, 3)
        >>> F.squeeze(x, axis=-2).shape
        (2, 1, 3)
    """
    if axis is not None and not isinstance(axis, tuple):
        axis = tuple(axis) if isinstance(axis, list) else (cast(int, axis),)
    try:
        return Squeeze(axis).apply((x,))[0]
    except type_check.InvalidType as e:
        # Chainer raises ValueError for an axis whose length is not 1.
        raise type_check._also(e, ValueError) from None
