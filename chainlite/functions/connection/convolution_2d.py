"""Two-dimensional convolution: the N-dimensional one with two spatial axes."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite.functions.array import im2col
from chainlite.functions.connection import convolution_nd

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


# Chainer's helpers of this module: an int as a pair (an indexable value as is), and the
# batched matrix product.
_pair = im2col._pair


def _matmul(a: numpy.ndarray, b: numpy.ndarray) -> numpy.ndarray:
    return numpy.matmul(a, b)


class Convolution2DFunction(convolution_nd.ConvolutionND):
    # ConvolutionND fixed to two spatial axes, under Chainer's name for messages.

    def __init__(self, stride: int | Sequence[int] = 1, pad: int | Sequence[int] = 0,
                 cover_all: bool = False, dilate: int | Sequence[int] = 1,
                 groups: int = 1) -> None:
        super().__init__(2, stride, pad, cover_all, dilate, groups)


class Convolution2DGradW(convolution_nd.ConvolutionNDGradW):
    """convolution_2d's filter-gradient node (Chainer's): ``Convolution2DGradW(conv2d,
    w_shape, w_dtype, w_layout).apply((x, gy))`` is the gradient of the filters of shape
    ``w_shape`` for the convolution node ``conv2d``, in ``w_dtype``; ``w_layout`` (a memory
    layout for cuDNN) must be None."""

    def __init__(self, conv2d: convolution_nd.ConvolutionND, w_shape: Sequence[int],
                 w_dtype: Any, w_layout: Any = None) -> None:
        if w_layout is not None:
            raise ValueError('Convolution2DGradW: w_layout must be None (memory layouts are '
                             'cuDNN\'s), got %r' % (w_layout,))
        self._init(conv2d, w_shape, w_dtype)
        self.W_shape = tuple(w_shape)
        self.w_layout = w_layout


def convolution_2d(x: VariableOrArray, W: VariableOrArray, b: VariableOrArray | None = None,
                   stride: int | Sequence[int] = 1, pad: int | Sequence[int] = 0,
                   cover_all: bool = False, *, dilate: int | Sequence[int] = 1,
                   groups: int = 1) -> Variable:
    """Two-dimensional convolution (cross-correlation) of a batch of images with filters.

    Window positions start at ``(-ph, -pw)`` and move by the stride; entries in the padding
    are 0. The output size is ``h_O = (h_I + 2 ph - dkh) // sy + 1`` with the dilated
    filter height ``dkh = kh + (kh - 1) (dy - 1)`` (``(h_I + 2 ph - dkh + sy - 1) // sy + 1``
    with ``cover_all``), and likewise for the width. With ``groups > 1`` the channels are
    split into groups and output group ``g`` sees only input group ``g``.

    Args:
        x: A float Variable or array of shape ``(n, c_I, h_I, w_I)``.
        W: The filters, of shape ``(c_O, c_I / groups, kh, kw)``;
            any float dtype (the output has ``x``'s).
        b: The bias, of shape ``(c_O,)`` (optional).
        stride: An int or a pair ``(sy, sx)``.
        pad: An int or a pair ``(ph, pw)``: zeros added on both sides.
        cover_all: Add window positions (into extra zero padding at the bottom and right)
            so that every input pixel is covered.
        dilate: An int or a pair ``(dy, dx)``: the spacing of the filter taps.
        groups: The number of channel groups; ``c_I`` and ``c_O`` must be multiples of it.

    Returns:
        A Variable of shape ``(n, c_O, h_O, w_O)``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
        >>> W = np.ones((1, 1, 2, 2))
        >>> F.convolution_2d(x, W, stride=2).array
        array([[[[10., 18.],
                 [42., 50.]]]])
        >>> F.convolution_2d(np.ones((8, 3, 32, 32)), np.ones((16, 3, 3, 3)), pad=1).shape
        (8, 16, 32, 32)
    """
    stride, pad, dilate = convolution_nd.check_parameters(
        'convolution_2d', 2, stride, pad, dilate, groups)
    func = Convolution2DFunction(stride, pad, cover_all, dilate, groups)
    return func.apply((x, W) if b is None else (x, W, b))[0]
