"""Dilated (atrous) 2-D convolution."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from chainlite.functions.connection import convolution_2d

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def dilated_convolution_2d(x: VariableOrArray, W: VariableOrArray, b: VariableOrArray | None = None,
                           stride: int | Sequence[int] = 1, pad: int | Sequence[int] = 0,
                           dilate: int | Sequence[int] = 1, cover_all: bool = False) -> Variable:
    """2-D convolution whose filter taps are ``dilate`` pixels apart (Chainer's name for
    :func:`convolution_2d` with ``dilate``).

    Args:
        x: Images of shape ``(n, c_I, h, w)``.
        W: Filters of shape ``(c_O, c_I, kh, kw)``.
        b: Bias of shape ``(c_O,)`` (optional).
        stride: An int or a pair.
        pad: An int or a pair.
        dilate: The spacing between filter taps, an int or a pair.
        cover_all: Whether to cover every input pixel with the last window.

    Returns:
        A Variable of shape ``(n, c_O, h_O, w_O)``.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> x = np.ones((1, 1, 5, 5), np.float32)
        >>> F.dilated_convolution_2d(x, np.ones((1, 1, 2, 2), np.float32), dilate=2).shape
        (1, 1, 3, 3)
    """
    return convolution_2d.convolution_2d(x, W, b, stride, pad, cover_all, dilate=dilate)
