"""Inverse of 2-d pooling: every input value spread over its window."""
from __future__ import annotations

from typing import TYPE_CHECKING

from chainlite.functions.pooling import unpooling_nd

if TYPE_CHECKING:
    from chainlite.types import ShapeSpec, VariableOrArray
    from chainlite.variable import Variable


class Unpooling2D(unpooling_nd.UnpoolingND):
    # UnpoolingND with two spatial axes, under Chainer's class name (converters and tests
    # look it up by that name).

    def __init__(self, ksize: ShapeSpec, stride: ShapeSpec | None = None, pad: ShapeSpec = 0,
                 outsize: ShapeSpec | None = None, cover_all: bool = True) -> None:
        super().__init__(2, ksize, stride, pad, outsize, cover_all)


class Unpooling2DGrad(unpooling_nd.UnpoolingNDGrad):
    """The input gradient of 2-d unpooling as Chainer's node, ``Unpooling2DGrad(f)``.

    Args:
        unpooling2d: The :class:`Unpooling2D` node whose forward has run.
    """


def unpooling_2d(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = None,
                 pad: ShapeSpec = 0, outsize: ShapeSpec | None = None,
                 cover_all: bool = True) -> Variable:
    """Inverse of pooling: copies every input pixel over its ``kh x kw`` output window.

    Output pixel windows are laid out as pooling with the same arguments would read them
    (starting at ``-pad``, moving by ``stride``); where windows overlap the copies add up.

    Args:
        x: A float Variable or array of shape ``(n, c, h, w)``.
        ksize: Window size: an int or a pair ``(kh, kw)``.
        stride: Stride: an int, a pair ``(sy, sx)``, or None (the window size).
        pad: Padding on each side: an int or a pair ``(ph, pw)``.
        outsize: The output size ``(out_h, out_w)``, or None for
            ``sy * (h - 1) + kh - 2 * ph`` (minus ``sy - 1`` with ``cover_all``), and
            likewise the width. Pooling the output with the same arguments must give back
            ``(h, w)`` windows.
        cover_all: Whether those windows are counted as :func:`max_pooling_2d` counts them
            with ``cover_all``.

    Returns:
        A Variable of shape ``(n, c, out_h, out_w)``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.array([[[[1., 2.],
        ...                 [3., 4.]]]])
        >>> F.unpooling_2d(x, 2, cover_all=False).array
        array([[[[1., 1., 2., 2.],
                 [1., 1., 2., 2.],
                 [3., 3., 4., 4.],
                 [3., 3., 4., 4.]]]])
    """
    return Unpooling2D(ksize, stride, pad, outsize, cover_all).apply((x,))[0]
