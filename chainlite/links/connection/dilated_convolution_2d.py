"""The two-dimensional dilated convolutional layer."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional, cast

from chainlite import link
from chainlite import variable
from chainlite.functions.connection import dilated_convolution_2d
from chainlite.links.connection import _param_args

if TYPE_CHECKING:
    from chainlite.types import InitializerSpec, ShapeSpec, VariableOrArray


_pair = _param_args.pair  # Chainer's helper of this module


class DilatedConvolution2D(link.Link):
    """Two-dimensional dilated convolutional layer: filter taps ``dilate`` pixels apart.

    The same computation as :class:`~chainlite.links.Convolution2D` with ``dilate``, kept
    under Chainer's name and argument order. ``W`` has shape
    ``(out_channels, in_channels, kh, kw)`` (LeCunNormal by default) and ``b`` shape
    ``(out_channels,)`` (zero by default). With ``in_channels=None``, or the short form
    ``DilatedConvolution2D(out_channels, ksize)``, ``W`` is created at the first forward.

    Args:
        in_channels: The number of input channels, or None to infer it.
        out_channels: The number of output channels.
        ksize: The filter size: an int or a pair ``(kh, kw)``.
        stride: An int or a pair ``(sy, sx)``.
        pad: An int or a pair ``(ph, pw)``: zeros added on both sides.
        dilate: An int or a pair ``(dy, dx)``: the spacing of the filter taps.
        nobias: If True, the layer has no bias (``b`` is None).
        initialW: The initializer of ``W``: an initializer, an array, a scalar, or None
            (LeCunNormal).
        initial_bias: The initializer of ``b``: an initializer, array, scalar, or None (0).

    Attributes:
        W: The filter Parameter.
        b: The bias Parameter, or None.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> conv = L.DilatedConvolution2D(3, 4, ksize=3, dilate=2)
        >>> conv(np.zeros((1, 3, 9, 9), np.float32)).shape
        (1, 4, 5, 5)
    """

    def __init__(self, in_channels: Optional[int], out_channels: int,
                 ksize: ShapeSpec | None = None, stride: ShapeSpec = 1, pad: ShapeSpec = 0,
                 dilate: ShapeSpec = 1, nobias: bool = False, initialW: InitializerSpec = None,
                 initial_bias: InitializerSpec = None) -> None:
        super().__init__()
        if ksize is None:
            in_channels, out_channels, ksize = None, cast(int, in_channels), out_channels
        self.ksize = ksize
        self.stride = _param_args.as_tuple(self, 'stride', stride, 2)
        self.pad = _param_args.as_tuple(self, 'pad', pad, 2)
        self.dilate = _param_args.as_tuple(self, 'dilate', dilate, 2)
        self.out_channels = out_channels
        with self.init_scope():
            self.W = variable.Parameter(_param_args.initializer(self, 'initialW', initialW))
            if in_channels is not None:
                self._initialize_params(in_channels)
            self.b = _param_args.bias(self, nobias, initial_bias, out_channels)

    def _initialize_params(self, in_channels: int) -> None:
        kh, kw = _param_args.as_tuple(self, 'ksize', self.ksize, 2)
        _param_args.initialize(self, 'initialW', self.W, (self.out_channels, in_channels, kh, kw))

    def forward(self, x: VariableOrArray) -> variable.Variable:
        """Applies the dilated convolution.

        Args:
            x: The images, of shape ``(n, in_channels, h, w)``.

        Returns:
            A Variable of shape ``(n, out_channels, h_O, w_O)``.
        """
        if self.W.array is None:
            self._initialize_params(_param_args.channels_of(self, x))
        return dilated_convolution_2d.dilated_convolution_2d(
            x, self.W, self.b, self.stride, self.pad, self.dilate)
