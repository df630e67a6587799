"""The two-dimensional depthwise convolutional layer."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Optional

from chainlite import initializers
from chainlite import link
from chainlite import variable
from chainlite.functions.connection import depthwise_convolution_2d
from chainlite.links.connection import _param_args

if TYPE_CHECKING:
    from chainlite.types import InitializerSpec, ShapeSpec, VariableOrArray


_pair = _param_args.pair  # Chainer's helper of this module


class DepthwiseConvolution2D(link.Link):
    """Two-dimensional depthwise convolution: each input channel has its own filters.

    Input channel ``c`` is convolved with the ``channel_multiplier`` filters ``W[:, c]``;
    output channel ``c * channel_multiplier + k`` is the result of filter ``W[k, c]``. ``W``
    has shape ``(channel_multiplier, in_channels, kh, kw)`` (HeNormal with scale
    :math:`1/\\sqrt{2}` by default) and ``b`` shape ``(in_channels * channel_multiplier,)``
    (zero by default). With ``in_channels=None`` both are created at the first forward.

    Args:
        in_channels: The number of input channels, or None to infer it.
        channel_multiplier: The number of filters per input channel.
        ksize: The filter size: an int or a pair ``(kh, kw)``.
        stride: An int or a pair ``(sy, sx)``.
        pad: An int or a pair ``(ph, pw)``: zeros added on both sides.
        nobias: If True, the layer has no bias (``b`` is None).
        initialW: The initializer of ``W``: an initializer, an array, a scalar, or None.
        initial_bias: The initializer of ``b``: an initializer, array, scalar, or None (0).

    Attributes:
        W: The filter Parameter.
        b: The bias Parameter, or None.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> conv = L.DepthwiseConvolution2D(3, 2, ksize=3, pad=1)
        >>> conv(np.zeros((1, 3, 5, 5), np.float32)).shape, conv.W.shape, conv.b.shape
        ((1, 6, 5, 5), (2, 3, 3, 3), (6,))
    """

    def __init__(self, in_channels: Optional[int], channel_multiplier: int, ksize: ShapeSpec,
                 stride: ShapeSpec = 1, pad: ShapeSpec = 0, nobias: bool = False,
                 initialW: InitializerSpec = None, initial_bias: InitializerSpec = None) -> None:
        super().__init__()
        self.ksize = ksize
        self.stride = _param_args.as_tuple(self, 'stride', stride, 2)
        self.pad = _param_args.as_tuple(self, 'pad', pad, 2)
        self.channel_multiplier = channel_multiplier
        self.nobias = nobias
        if initialW is None:
            initialW = initializers.HeNormal(1 / math.sqrt(2))
        with self.init_scope():
            self.W = variable.Parameter(_param_args.initializer(self, 'initialW', initialW))
            self.b = _param_args.bias(self, nobias, initial_bias, None)
            if in_channels is not None:
                self._initialize_params(in_channels)

    def _initialize_params(self, in_channels: int) -> None:
        kh, kw = _param_args.as_tuple(self, 'ksize', self.ksize, 2)
        _param_args.initialize(self, 'initialW', self.W,
                               (self.channel_multiplier, in_channels, kh, kw))
        if self.b is not None:
            _param_args.initialize(self, 'initial_bias', self.b,
                                   (self.channel_multiplier * in_channels,))

    def forward(self, x: VariableOrArray) -> variable.Variable:
        """Applies the depthwise convolution.

        Args:
            x: The images, of shape ``(n, in_channels, h, w)``.

        Returns:
            A Variable of shape ``(n, in_channels * channel_multiplier, h_O, w_O)``.
        """
        if self.W.array is None:
            self._initialize_params(_param_args.channels_of(self, x))
        return depthwise_convolution_2d.depthwise_convolution_2d(
            x, self.W, self.b, self.stride, self.pad)
