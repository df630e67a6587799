"""Depthwise 2-D convolution: each input channel convolved with its own filters."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from chainlite.functions.array import reshape
from chainlite.functions.array import transpose
from chainlite.functions.connection import convolution_2d

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def depthwise_convolution_2d(x: VariableOrArray, W: VariableOrArray,
                             b: VariableOrArray | None = None, stride: int | Sequence[int] = 1,
                             pad: int | Sequence[int] = 0) -> Variable:
    """Depthwise convolution: input channel ``c`` is convolved with ``W[:, c]`` only.

    It is a grouped convolution with one group per input channel; the output channels are
    ordered channel-major (``c * channel_multiplier + k``), as in Chainer.

    Args:
        x: Images of shape ``(n, c_I, h, w)``.
        W: Filters of shape ``(channel_multiplier, c_I, kh, kw)``.
        b: Bias of shape ``(channel_multiplier * c_I,)`` (optional).
        stride: An int or a pair.
        pad: An int or a pair.

    Returns:
        A Variable of shape ``(n, c_I * channel_multiplier, h_O, w_O)``.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> x = np.ones((1, 2, 4, 4), np.float32)
        >>> W = np.ones((3, 2, 2, 2), np.float32)
        >>> F.depthwise_convolution_2d(x, W).shape
        (1, 6, 3, 3)
    """
    m, c, kh, kw = W.shape
    W = reshape.reshape(transpose.transpose(W, (1, 0, 2, 3)), (c * m, 1, kh, kw))
    return convolution_2d.convolution_2d(x, W, b, stride, pad, groups=c)
