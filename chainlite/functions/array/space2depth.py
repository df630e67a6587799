"""Space-to-depth rearrangement (blocks of pixels into channels)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions.array import depth2space
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class Space2Depth(function_node.FunctionNode):

    def __init__(self, r: int) -> None:
        self.r = r

    @property
    def label(self) -> str:
        return 'Space2Depth'

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('X',))
        X, = in_types
        type_check.expect(X.dtype.kind == 'f', X.ndim == 4)
        type_check.expect(X.shape[2] % self.r == 0, X.shape[3] % self.r == 0)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        X, = inputs
        r = self.r
        n, c, h, w = X.shape
        # (n, c, h/r, ry, w/r, rx) -> (n, ry, rx, c, h/r, w/r): channel (ry * r + rx) * c + ci.
        X = X.reshape(n, c, h // r, r, w // r, r).transpose(0, 3, 5, 1, 2, 4)
        return X.reshape(n, r * r * c, h // r, w // r),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, = grad_outputs
        return depth2space.depth2space(gy, self.r),


def space2depth(X: VariableOrArray, r: int) -> Variable:
    """Moves each ``r x r`` block of pixels into the channels (the inverse of depth2space).

    Output channel ``(ry * r + rx) * c + ci`` at ``(i, j)`` holds input channel ``ci`` at
    ``(i * r + ry, j * r + rx)``.

    Args:
        X: A float Variable or array of shape ``(batch, channel, dim1 * r, dim2 * r)``.
        r: The downscaling factor (a positive int).

    Returns:
        A Variable of shape ``(batch, channel * r * r, dim1, dim2)``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> y = F.space2depth(np.arange(16.0).reshape(1, 1, 4, 4), 2)
        >>> y.shape
        (1, 4, 2, 2)
        >>> y.array[0, :, 0, 0]
        array([0., 1., 4., 5.])
    """
    if not isinstance(r, (int, numpy.integer)) or isinstance(r, bool) or r < 1:
        raise ValueError('space2depth: r must be a positive int, got %r' % (r,))
    return Space2Depth(int(r)).apply((X,))[0]
