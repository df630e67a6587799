"""The two-dimensional deconvolutional (transposed convolution) layer."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional, cast

from chainlite import link
from chainlite import variable
from chainlite.functions.connection import deconvolution_2d
from chainlite.links.connection import _param_args

if TYPE_CHECKING:
    from chainlite.types import InitializerSpec, ShapeSpec, VariableOrArray


_pair = _param_args.pair  # Chainer's helper of this module


class Deconvolution2D(link.Link):
    """Two-dimensional deconvolutional layer (:func:`~chainlite.functions.deconvolution_2d`).

    ``W`` has shape ``(in_channels, out_channels / groups, kh, kw)`` (LeCunNormal by default)
    and ``b`` shape ``(out_channels,)`` (zero by default). With ``in_channels=None``, or the
    short form ``Deconvolution2D(out_channels, ksize)``, ``W`` is created at the first
    forward from the input's channel count.

    Args:
        in_channels: The number of input channels, or None to infer it.
        out_channels: The number of output channels.
        ksize: The filter size: an int or a pair ``(kh, kw)``.
        stride: An int or a pair ``(sy, sx)``.
        pad: An int or a pair ``(ph, pw)``: the padding trimmed from the output.
        nobias: If True, the layer has no bias (``b`` is None).
        outsize: The output size ``(h_O, w_O)``, or None to compute it from the input.
        initialW: The initializer of ``W``: an initializer, an array, a scalar, or None
            (LeCunNormal).
        initial_bias: The initializer of ``b``: an initializer, array, scalar, or None (0).
        dilate: An int or a pair ``(dy, dx)``: the spacing of the filter taps.
        groups: The number of channel groups; both channel counts must be multiples of it.

    Attributes:
        W: The filter Parameter.
        b: The bias Parameter, or None.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> deconv = L.Deconvolution2D(3, 2, ksize=4, stride=2, pad=1)
        >>> deconv(np.zeros((1, 3, 5, 5), np.float32)).shape, deconv.W.shape
        ((1, 2, 10, 10), (3, 2, 4, 4))
    """

    def __init__(self, in_channels: Optional[int], out_channels: int,
                 ksize: ShapeSpec | None = None, stride: ShapeSpec = 1, pad: ShapeSpec = 0,
                 nobias: bool = False, outsize: tuple[int, ...] | None = None,
                 initialW: InitializerSpec = None, initial_bias: InitializerSpec = None, *,
                 dilate: ShapeSpec = 1, groups: int = 1) -> None:
        super().__init__()
        if ksize is None:
            in_channels, out_channels, ksize = None, cast(int, in_channels), out_channels
        _param_args.check_size(self, 'in_channels', in_channels)
        _param_args.check_size(self, 'out_channels', out_channels, optional=False)
        _param_args.as_tuple(self, 'ksize', ksize, 2)  # checked now, kept as given
        self.ksize = ksize
        self.stride = _param_args.as_tuple(self, 'stride', stride, 2)
        self.pad = _param_args.as_tuple(self, 'pad', pad, 2)
        self.dilate = _param_args.as_tuple(self, 'dilate', dilate, 2)
        self.outsize = (None, None) if outsize is None else outsize
        self.out_channels = out_channels
        self.groups = int(groups)
        with self.init_scope():
            self.W = variable.Parameter(_param_args.initializer(self, 'initialW', initialW))
            if in_channels is not None:
                self._initialize_params(in_channels)
            self.b = _param_args.bias(self, nobias, initial_bias, out_channels)

    def _initialize_params(self, in_channels: int) -> None:
        kh, kw = _param_args.as_tuple(self, 'ksize', self.ksize, 2)
        _param_args.check_groups(self, in_channels, self.out_channels, self.groups)
        _param_args.initialize(self, 'initialW', self.W,
                               (in_channels, self.out_channels // self.groups, kh, kw))

    def forward(self, x: VariableOrArray) -> variable.Variable:
        """Applies the deconvolution.

        Args:
            x: The images, of shape ``(n, in_channels, h, w)``.

        Returns:
            A Variable of shape ``(n, out_channels, h_O, w_O)``.
        """
        if self.W.array is None:
            self._initialize_params(_param_args.channels_of(self, x))
        outsize = None if all(s is None for s in self.outsize) else cast(
            'tuple[int, int]', self.outsize)
        return deconvolution_2d.deconvolution_2d(x, self.W, self.b, self.stride, self.pad,
                                                 outsize, dilate=self.dilate,
                                                 groups=self.groups)
