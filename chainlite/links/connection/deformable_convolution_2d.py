"""The deformable convolution layer."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from chainlite import initializers
from chainlite import link
from chainlite import variable
from chainlite.functions.connection import deformable_convolution_2d_sampler as sampler_mod
from chainlite.links.connection import convolution_2d

if TYPE_CHECKING:
    from chainlite.types import InitializerSpec, ShapeSpec, VariableOrArray


def _pair(x: Any) -> tuple:
    return tuple(x) if hasattr(x, '__getitem__') else (x, x)


class DeformableConvolution2DSampler(link.Link):
    """The filters of a deformable convolution, applied at given offsets
    (:func:`~chainlite.functions.deformable_convolution_2d_sampler`).

    Args:
        in_channels: Input channels, or None to infer them at the first forward.
        out_channels (int): Output channels.
        ksize: The filter size (an int or a pair).
        stride: An int or a pair.
        pad: An int or a pair.
        nobias (bool): If True, there is no bias.
        initialW: The initializer of ``W`` (None: zeros, as in Chainer).
        initial_bias: The initializer of ``b`` (None: 0).

    Attributes:
        W: The filters ``(out_channels, in_channels, k_H, k_W)``.
        b: The biases ``(out_channels,)``, or None.
    """

    def __init__(self, in_channels: Optional[int], out_channels: int, ksize: ShapeSpec,
                 stride: ShapeSpec = 1, pad: ShapeSpec = 0, nobias: bool = False,
                 initialW: InitializerSpec = None, initial_bias: InitializerSpec = None) -> None:
        super().__init__()
        self.ksize = ksize
        self.stride = _pair(stride)
        self.pad = _pair(pad)
        self.out_channels = out_channels
        self.initialW = initialW
        with self.init_scope():
            self.W = variable.Parameter(initializers._get_initializer(
                initializers.Zero() if initialW is None else initialW))
            if nobias:
                self.b = None
            else:
                self.b = variable.Parameter(initializers._get_initializer(
                    0 if initial_bias is None else initial_bias))
        if in_channels is not None:
            self._initialize_params(in_channels)

    def _initialize_params(self, in_channels: int) -> None:
        kh, kw = _pair(self.ksize)
        self.W.initialize((self.out_channels, in_channels, kh, kw))
        if self.b is not None:
            self.b.initialize((self.out_channels,))

    def forward(self, x: VariableOrArray, offset: VariableOrArray) -> variable.Variable:
        """Applies the filters at the taps moved by ``offset``.

        Args:
            x: Input images ``(n, c_I, h, w)``.
            offset: Offsets ``(n, 2 * k_H * k_W, h_O, w_O)``.

        Returns:
            A Variable of shape ``(n, out_channels, h_O, w_O)``.
        """
        if self.W.array is None:
            self._initialize_params(x.shape[1])
        return sampler_mod.deformable_convolution_2d_sampler(x, offset, self.W, self.b,
                                                             self.stride, self.pad)


class DeformableConvolution2D(link.Chain):
    """Deformable convolution layer (Dai et al., 2017, https://arxiv.org/abs/1703.06211).

    A :class:`~chainlite.links.Convolution2D` (``offset_conv``) computes, from the input,
    the offsets of every filter tap at every output position; the deformable filters
    (``deform_conv``, a :class:`DeformableConvolution2DSampler`) are then applied at the
    moved taps.

    Args:
        in_channels: Input channels, or None to infer them at the first forward.
        out_channels (int): Output channels.
        ksize: The filter size (an int or a pair).
        stride: An int or a pair (of both convolutions).
        pad: An int or a pair (of both convolutions).
        offset_nobias (bool): No bias in ``offset_conv``.
        offset_initialW: The initializer of ``offset_conv.W``.
        offset_initial_bias: The initializer of ``offset_conv.b``.
        deform_nobias (bool): No bias in ``deform_conv``.
        deform_initialW: The initializer of ``deform_conv.W`` (None: zeros).
        deform_initial_bias: The initializer of ``deform_conv.b``.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> layer = L.DeformableConvolution2D(3, 4, 3, pad=1)
        >>> layer.offset_conv.W.shape, layer.deform_conv.W.shape
        ((18, 3, 3, 3), (4, 3, 3, 3))
        >>> layer(np.ones((2, 3, 5, 5), np.float32)).shape
        (2, 4, 5, 5)
    """

    def __init__(self, in_channels: Optional[int], out_channels: int, ksize: ShapeSpec,
                 stride: ShapeSpec = 1, pad: ShapeSpec = 0, offset_nobias: bool = False,
                 offset_initialW: InitializerSpec = None,
                 offset_initial_bias: InitializerSpec = None, deform_nobias: bool = False,
                 deform_initialW: InitializerSpec = None,
                 deform_initial_bias: InitializerSpec = None) -> None:
        super().__init__()
        kh, kw = _pair(ksize)
        with self.init_scope():
            self.offset_conv = convolution_2d.Convolution2D(
                in_channels, 2 * kh * kw, ksize, stride, pad, offset_nobias, offset_initialW,
                offset_initial_bias)
            self.deform_conv = DeformableConvolution2DSampler(
                in_channels, out_channels, ksize, stride, pad, deform_nobias,
                deform_initialW, deform_initial_bias)

    def forward(self, x: VariableOrArray) -> variable.Variable:
        """Computes the offsets from ``x``, then the deformable convolution.

        Args:
            x: Input images ``(n, c_I, h, w)``.

        Returns:
            A Variable of shape ``(n, out_channels, h_O, w_O)``.
        """
        return self.deform_conv(x, self.offset_conv(x))
