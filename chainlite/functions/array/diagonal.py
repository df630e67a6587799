"""Take (batched) diagonals of an array (a read-only view, as NumPy gives)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions import _axis

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _check_axes(axis1, axis2, ndim, label):
    axis1 = _axis.normalize_axis(axis1, ndim, label)
    axis2 = _axis.normalize_axis(axis2, ndim, label)
    if axis1 == axis2:
        raise ValueError('%s: axis1 and axis2 cannot be the same axis (%d)' % (label, axis1))
    return axis1, axis2


class Diagonal(function_node.FunctionNode):

    def __init__(self, offset: int, axis1: int, axis2: int) -> None:
        self.offset = offset
        self.axis1 = axis1
        self.axis2 = axis2

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.axis1, self.axis2 = _check_axes(self.axis1, self.axis2, x.ndim, self.label)
        return x.diagonal(self.offset, self.axis1, self.axis2),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        return _DiagonalGrad(in_nodes[0].shape, self.offset, self.axis1,
                             self.axis2).apply((gy,))


class _DiagonalGrad(function_node.FunctionNode):
    # Writes gy onto the diagonal of zeros; its own gradient is Diagonal again.

    def __init__(self, in_shape: tuple[int, ...], offset: int, axis1: int, axis2: int) -> None:
        self._in_shape = in_shape
        self.offset = offset
        self.axis1 = axis1
        self.axis2 = axis2

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        gy, = inputs
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self._in_shape, gy.dtype)
        # NumPy's diagonal view is read-only: write through a view with the two axes last.
        planes = xp.moveaxis(gx, (self.axis1, self.axis2), (-2, -1))
        i = xp.arange(gy.shape[-1])
        planes[..., i + max(-self.offset, 0), i + max(self.offset, 0)] = gy
        return gx,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        ggx, = grad_outputs
        return Diagonal(self.offset, self.axis1, self.axis2).apply((ggx,))


# Chainer's name for diagonal's gradient node, ``DiagonalGrad(x_shape, offset, axis1,
# axis2).apply((gy,))``: gy written onto the diagonal of zeros of ``x_shape``.
DiagonalGrad = _DiagonalGrad


def diagonal(x: VariableOrArray, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Variable:
    """Takes the diagonals of ``x`` in the planes of ``axis1`` and ``axis2``.

    The other axes are batch axes: as :func:`numpy.diagonal`, the result has them first, in
    order, and the diagonal last.

    Args:
        x: A Variable or array with at least two axes.
        offset: The offset from the main diagonal: positive for diagonals above it
            (``x[i, i + offset]``), negative for those below.
        axis1: The axis of the rows (an int; negative values count from the end).
        axis2: The axis of the columns; it must differ from ``axis1``.

    Returns:
        A Variable (a read-only view of ``x``'s data); its gradient is zero off the
        diagonal.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.arange(9.0).reshape(3, 3)
        >>> F.diagonal(x).array
        array([0., 4., 8.])
        >>> F.diagonal(x, offset=1).array
        array([1., 5.])
    """
    for name, a in (('offset', offset), ('axis1', axis1), ('axis2', axis2)):
        if not isinstance(a, (int, numpy.integer)) or isinstance(a, bool):
            raise TypeError('diagonal: %s must be an int, got %r' % (name, a))
    return Diagonal(int(offset), int(axis1), int(axis2)).apply((x,))[0]
