"""Separate an array into its slices along an axis (the inverse of stack)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions import _axis
from chainlite.functions.array import stack

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class Separate(function_node.FunctionNode):

    def __init__(self, axis: int) -> None:
        self.axis = axis  # non-negative: separate() normalized it

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        # Iterating over the first axis gives views (0-d slices come back as scalars, which
        # apply() turns into arrays).
        return tuple(xp.moveaxis(x, self.axis, 0))

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        x = in_nodes[0]
        shape = x.shape[:self.axis] + x.shape[self.axis + 1:]
        # A slice left out of the loss has no gradient: it contributes zeros.
        xp = backend.get_array_module(*grad_outputs)
        gys = [xp.zeros(shape, x.dtype) if g is None else g for g in grad_outputs]
        return stack.stack(gys, self.axis),


def separate(x: VariableOrArray, axis: int = 0) -> tuple[Variable, ...]:
    """Separates a Variable or array into its slices along an axis.

    The inverse of :func:`~chainlite.functions.stack`: an input of shape ``(2, 3, 4)``
    separated along ``axis=1`` gives three Variables of shape ``(2, 4)``.

    Args:
        x: A Variable or array with at least one axis.
        axis: The axis to separate along (negative values count from the end).

    Returns:
        A tuple of ``x.shape[axis]`` Variables (views of ``x``'s data where NumPy gives views).
        Slices left out of the loss get zero gradients.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> [y.array for y in F.separate(np.arange(4.0).reshape(2, 2), axis=1)]
        [array([0., 2.]), array([1., 3.])]
    """
    ndim = getattr(x, 'ndim', None)
    if ndim is not None:
        axis = _axis.normalize_axis(axis, ndim, 'Separate')
    return Separate(axis).apply((x,))
