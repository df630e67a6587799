"""Depth-to-space rearrangement (channels into blocks of pixels, as in subpixel convolution)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions.array import space2depth
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class Depth2Space(function_node.FunctionNode):

    def __init__(self, r: int) -> None:
        self.r = r

    @property
    def label(self) -> str:
        return 'Depth2Space'

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('X',))
        X, = in_types
        type_check.expect(X.dtype.kind == 'f', X.ndim == 4)
        type_check.expect(X.shape[1] % (self.r * self.r) == 0)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        X, = inputs
        r = self.r
        n, c, h, w = X.shape
        c //= r * r
        # (n, ry, rx, c, h, w) -> (n, c, h, ry, w, rx): pixel (i * r + ry, j * r + rx).
        X = X.reshape(n, r, r, c, h, w).transpose(0, 3, 4, 1, 5, 2)
        return X.reshape(n, c, h * r, w * r),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, = grad_outputs
        return space2depth.space2depth(gy, self.r),


def depth2space(X: VariableOrArray, r: int) -> Variable:
    """Spreads groups of ``r * r`` channels over ``r x r`` blocks of pixels (subpixel upscaling).

    Output channel ``ci`` at ``(i * r + ry, j * r + rx)`` holds input channel
    ``(ry * r + rx) * channel + ci`` at ``(i, j)``; :func:`space2depth` is the inverse.

    Args:
        X: A float Variable or array of shape ``(batch, channel * r * r, dim1, dim2)``.
        r: The upscaling factor (a positive int).

    Returns:
        A Variable of shape ``(batch, channel, dim1 * r, dim2 * r)``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> y = F.depth2space(np.arange(4.0).reshape(1, 4, 1, 1), 2)
        >>> y.shape
        (1, 1, 2, 2)
        >>> y.array[0, 0]
        array([[0., 1.],
               [2., 3.]])
    """
    if not isinstance(r, (int, numpy.integer)) or isinstance(r, bool) or r < 1:
        raise ValueError('depth2space: r must be a positive int, got %r' % (r,))
    return Depth2Space(int(r)).apply((X,))[0]
