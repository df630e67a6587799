"""The locally connected 2-D layer."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from chainlite import initializers
from chainlite import link
from chainlite import variable
from chainlite.functions.connection import local_convolution_2d

if TYPE_CHECKING:
    from chainlite.types import InitializerSpec, ShapeSpec, VariableOrArray


def _pair(x: Any) -> tuple:
    return tuple(x) if hasattr(x, '__getitem__') else (x, x)


def _conv_output_length(input_length: int, filter_size: int, stride: int) -> int:
    # Chainer's helper: the output length of a stride-1 valid convolution; like Chainer's, it
    # ignores ``stride``.
    return input_length - filter_size + 1


class LocalConvolution2D(link.Link):
    """Locally connected layer (:func:`~chainlite.functions.local_convolution_2d`): a 2-D
    convolution without padding whose filters differ at each output position.

    ``W`` has shape ``(out_channels, h_O, w_O, in_channels, k_H, k_W)`` and ``b`` shape
    ``(out_channels, h_O, w_O)``, where ``h_O = (h - k_H) // s_Y + 1`` for inputs of height
    ``h`` (likewise ``w_O``). Both are created when ``in_channels`` and ``in_size`` are known,
    or else at the first forward from the input's shape.

    Args:
        in_channels: Input channels, or None to infer them at the first forward.
        out_channels (int): Output channels.
        in_size: The input's spatial size (an int or a pair), or None to infer it.
        ksize: The filter size (an int or a pair).
        stride: An int or a pair.
        nobias (bool): If True, there is no bias.
        initialW: The initializer of ``W`` (None: LeCun normal).
        initial_bias: The initializer of ``b`` (None: 0).

    Attributes:
        W: The filters (a Parameter).
        b: The biases (a Parameter), or None.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> layer = L.LocalConvolution2D(3, 2, in_size=5, ksize=3)
        >>> layer.W.shape, layer.b.shape
        ((2, 3, 3, 3, 3, 3), (2, 3, 3))
        >>> layer(np.zeros((4, 3, 5, 5), np.float32)).shape
        (4, 2, 3, 3)
    """

    def __init__(self, in_channels: Optional[int], out_channels: int,
                 in_size: Optional[ShapeSpec] = None, ksize: ShapeSpec | None = None,
                 stride: ShapeSpec = 1, nobias: bool = False, initialW: InitializerSpec = None,
                 initial_bias: InitializerSpec = None) -> None:
        super().__init__()
        if ksize is None:
            raise TypeError('LocalConvolution2D: ksize is required')
        self.ksize = ksize
        self.stride = _pair(stride)
        self.nobias = nobias
        self.out_channels = out_channels
        with self.init_scope():
            self.W = variable.Parameter(initializers._get_initializer(initialW))
            if nobias:
                self.b = None
            else:
                self.b = variable.Parameter(initializers._get_initializer(
                    0 if initial_bias is None else initial_bias))
        if in_channels is not None and in_size is not None:
            self._initialize_params(in_channels, _pair(in_size))

    def _initialize_params(self, in_channels: int, in_size: Any) -> None:
        kh, kw = _pair(self.ksize)
        ih, iw = _pair(in_size)
        oh = (ih - kh) // self.stride[0] + 1
        ow = (iw - kw) // self.stride[1] + 1
        self.W.initialize((self.out_channels, oh, ow, in_channels, kh, kw))
        if self.b is not None:
            self.b.initialize((self.out_channels, oh, ow))

    def forward(self, x: VariableOrArray) -> variable.Variable:
        """Applies the layer.

        Args:
            x: Input images ``(n, in_channels, h, w)``.

        Returns:
            A Variable of shape ``(n, out_channels, h_O, w_O)``.
        """
        if self.W.array is None:
            self._initialize_params(x.shape[1], x.shape[2:])
        return local_convolution_2d.local_convolution_2d(x, self.W, self.b, self.stride)
