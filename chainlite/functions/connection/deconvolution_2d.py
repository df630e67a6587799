"""Two-dimensional deconvolution: the N-dimensional one with two spatial axes."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from chainlite.functions.array import im2col
from chainlite.functions.connection import convolution_nd
from chainlite.functions.connection import deconvolution_nd

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


# Chainer's helper of this module: an int as a pair (an indexable value as is).
_pair = im2col._pair

class Deconvolution2DFunction(deconvolution_nd.DeconvolutionND):
    # DeconvolutionND fixed to two spatial axes, under Chainer's name for messages.

    def __init__(self, stride: int | Sequence[int] = 1, pad: int | Sequence[int] = 0,
                 outsize: Sequence[int] | None = None, dilate: int | Sequence[int] = 1,
                 groups: int = 1) -> None:
        super().__init__(2, stride, pad, outsize, dilate, groups)


def deconvolution_2d(x: VariableOrArray, W: VariableOrArray, b: VariableOrArray | None = None,
                     stride: int | Sequence[int] = 1, pad: int | Sequence[int] = 0,
                     outsize: Sequence[int] | None = None, *,
                     dilate: int | Sequence[int] = 1, groups: int = 1) -> Variable:
    """Two-dimensional deconvolution (transposed convolution).

    The transpose of
    :func:`~chainlite.functions.connection.convolution_2d.convolution_2d`: every input
    pixel adds a copy of the filter, scaled by its value, to the output at stride steps.
    Without ``outsize``, the output size is ``h_O = sy (h_I - 1) + dkh - 2 ph`` with the
    dilated filter height ``dkh = kh + (kh - 1) (dy - 1)``, and likewise for the width.

    Args:
        x: A float Variable or array of shape ``(n, c_I, h_I, w_I)``.
        W: The filters, of shape ``(c_I, c_O / groups, kh, kw)``;
            any float dtype (the output has ``x``'s).
        b: The bias, of shape ``(c_O,)`` (optional).
        stride: An int or a pair ``(sy, sx)``.
        pad: An int or a pair ``(ph, pw)``: the padding of the convolution this one
            transposes (trimmed from the output).
        outsize: A pair ``(h_O, w_O)``: one of the sizes that a convolution with these
            parameters (with or without ``cover_all``) maps to ``(h_I, w_I)``. None
            computes it.
        dilate: An int or a pair ``(dy, dx)``: the spacing of the filter taps.
        groups: The number of channel groups; ``c_I`` must be a multiple of it.

    Returns:
        A Variable of shape ``(n, c_O, h_O, w_O)``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.array([[[[1.0, 2.0]]]])
        >>> F.deconvolution_2d(x, np.ones((1, 1, 2, 2)), stride=2).array
        array([[[[1., 1., 2., 2.],
                 [1., 1., 2., 2.]]]])
        >>> F.deconvolution_2d(np.ones((2, 8, 7, 7)), np.ones((8, 3, 4, 4)), stride=2,
        ...                  pad=1).shape
        (2, 3, 14, 14)
    """
    stride, pad, dilate = convolution_nd.check_parameters(
        'deconvolution_2d', 2, stride, pad, dilate, groups)
    if outsize is not None:
        outsize = convolution_nd.check_parameters('deconvolution_2d', 2, outsize, 0, 1, 1)[0]
    func = Deconvolution2DFunction(stride, pad, outsize, dilate, groups)
    return func.apply((x, W) if b is None else (x, W, b))[0]
