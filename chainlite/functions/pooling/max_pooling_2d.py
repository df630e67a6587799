"""Spatial (2-d) max pooling."""
from __future__ import annotations

from typing import TYPE_CHECKING, Literal, overload

import numpy

from chainlite.functions.pooling import max_pooling_nd

if TYPE_CHECKING:
    from chainlite.types import ShapeSpec, VariableOrArray
    from chainlite.variable import Variable


class MaxPooling2D(max_pooling_nd.MaxPoolingND):

    def __init__(self, ksize: ShapeSpec, stride: ShapeSpec | None = None, pad: ShapeSpec = 0,
                 cover_all: bool = True, return_indices: bool = False) -> None:
        super().__init__(2, ksize, stride, pad, cover_all, return_indices)


@overload
def max_pooling_2d(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = ...,
                   pad: ShapeSpec = ..., cover_all: bool = ...,
                   return_indices: Literal[False] = ...) -> Variable: ...


@overload
def max_pooling_2d(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = ...,
                   pad: ShapeSpec = ..., cover_all: bool = ..., *,
                   return_indices: Literal[True]) -> tuple[Variable, numpy.ndarray]: ...


@overload
def max_pooling_2d(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = ...,
                   pad: ShapeSpec = ..., cover_all: bool = ...,
                   return_indices: bool = ...) -> Variable | tuple[Variable, numpy.ndarray]: ...


def max_pooling_2d(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = None,
                   pad: ShapeSpec = 0, cover_all: bool = True,
                   return_indices: bool = False) -> Variable | tuple[Variable, numpy.ndarray]:
    """Spatial max pooling: the maximum of every ``kh x kw`` window, channel by channel.

    Windows start at ``-pad`` and move by ``stride``; the padding never wins the maximum.
    There are ``(h + 2 * ph - kh) // sy + 1`` window rows, or
    ``(h + 2 * ph - kh + sy - 1) // sy + 1`` with ``cover_all`` (and likewise columns).

    Args:
        x: A float Variable or array of shape ``(n, c, h, w)``.
        ksize: Window size: an int or a pair ``(kh, kw)``.
        stride: Stride: an int, a pair ``(sy, sx)``, or None (the window size).
        pad: Padding on each side: an int or a pair ``(ph, pw)``.
        cover_all: Add windows so that every input pixel is pooled into some output.
        return_indices: Also return the offset ``i * kw + j`` of the maximum inside each
            window (the first maximum on ties), as an integer array of the output's shape,
            for :func:`~chainlite.functions.upsampling_2d`.

    Returns:
        A Variable of shape ``(n, c, out_h, out_w)``, or the pair ``(y, indexes)`` with
        ``return_indices``. The gradient goes to the maximum of each window only.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.array([[[[1., 5., 2., 0.],
        ...                 [3., 4., 8., 6.]]]])
        >>> y, indexes = F.max_pooling_2d(x, 2, return_indices=True)
        >>> y.array
        array([[[[5., 8.]]]])
        >>> indexes
        array([[[[1, 2]]]])
    """
    return max_pooling_nd._apply(
        MaxPooling2D(ksize, stride, pad, cover_all, return_indices), x)
