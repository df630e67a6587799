"""Spatial (2-d) average pooling."""
from __future__ import annotations

from typing import TYPE_CHECKING

from chainlite.functions.pooling import average_pooling_nd

if TYPE_CHECKING:
    from chainlite.types import ShapeSpec, VariableOrArray
    from chainlite.variable import Variable


class AveragePooling2D(average_pooling_nd.AveragePoolingND):

    def __init__(self, ksize: ShapeSpec, stride: ShapeSpec | None = None, pad: ShapeSpec = 0,
                 pad_value: float | None = 0) -> None:
        super().__init__(2, ksize, stride, pad, pad_value)


class AveragePooling2DGrad(average_pooling_nd.AveragePoolingNDGrad):
    """The input gradient of 2-d average pooling as Chainer's node, ``AveragePooling2DGrad(f)``.

    Args:
        apool2d: The :class:`AveragePooling2D` node whose forward has run.
    """

    def __init__(self, apool2d: AveragePooling2D) -> None:
        super().__init__(apool2d)
        self.apool2d = apool2d


def average_pooling_2d(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = None,
                       pad: ShapeSpec = 0, pad_value: float | None = 0) -> Variable:
    """Spatial average pooling: the mean of every ``kh x kw`` window, channel by channel.

    Windows start at ``-pad`` and move by ``stride``; there are ``(h + 2 * ph - kh) // sy +
    1`` window rows (no ``cover_all`` mode, as in Chainer), and likewise columns.

    Args:
        x: A float Variable or array of shape ``(n, c, h, w)``.
        ksize: Window size: an int or a pair ``(kh, kw)``.
        stride: Stride: an int, a pair ``(sy, sx)``, or None (the window size).
        pad: Padding on each side: an int or a pair ``(ph, pw)``.
        pad_value: 0 (Chainer's behaviour: the padding counts as zeros, so averages near the
            border lean towards zero) or None (the padding is left out, as with
            :func:`~chainlite.functions.average_pooling_nd`).

    Returns:
        A Variable of shape ``(n, c, out_h, out_w)``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
        >>> F.average_pooling_2d(x, 2).array
        array([[[[ 2.5,  4.5],
                 [10.5, 12.5]]]])
    """
    return AveragePooling2D(ksize, stride, pad, pad_value).apply((x,))[0]
