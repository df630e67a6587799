"""The two-dimensional convolutional layer."""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Optional, cast

from chainlite import link
from chainlite import variable
from chainlite.functions.connection import convolution_2d
from chainlite.links.connection import _param_args

if TYPE_CHECKING:
    from chainlite.types import InitializerSpec, ShapeSpec, VariableOrArray


_pair = _param_args.pair  # Chainer's helper of this module


class Convolution2D(link.Link):
    """Two-dimensional convolutional layer (:func:`~chainlite.functions.convolution_2d`).

    ``W`` has shape ``(out_channels, in_channels / groups, kh, kw)`` (LeCunNormal by default)
    and ``b`` shape ``(out_channels,)`` (zero by default). With ``in_channels=None``, or the
    short form ``Convolution2D(out_channels, ksize)``, ``W`` is created at the first forward
    from the input's channel count.

    Args:
        in_channels: The number of input channels, or None to infer it.
        out_channels: The number of output channels.
        ksize: The filter size: an int or a pair ``(kh, kw)``.
        stride: An int or a pair ``(sy, sx)``.
        pad: An int or a pair ``(ph, pw)``: zeros added on both sides.
        nobias: If True, the layer has no bias (``b`` is None).
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
        >>> conv = L.Convolution2D(3, 8, ksize=3, pad=1)
        >>> conv(np.zeros((2, 3, 5, 5), np.float32)).shape, conv.W.shape
        ((2, 8, 5, 5), (8, 3, 3, 3))
        >>> lazy = L.Convolution2D(8, 3)  # out_channels=8, ksize=3
        >>> lazy(np.zeros((1, 4, 5, 5), np.float32)).shape, lazy.W.shape
        ((1, 8, 3, 3), (8, 4, 3, 3))
    """

    def __init__(self, in_channels: Optional[int], out_channels: int,
                 ksize: ShapeSpec | None = None, stride: ShapeSpec = 1, pad: ShapeSpec = 0,
                 nobias: bool = False, initialW: InitializerSpec = None,
                 initial_bias: InitializerSpec = None, *, dilate: ShapeSpec = 1,
                 groups: int = 1) -> None:
        super().__init__()
        if ksize is None:
            in_channels, out_channels, ksize = None, cast(int, in_channels), out_channels
        _param_args.check_size(self, 'in_channels', in_channels)
        _param_args.check_size(self, 'out_channels', out_channels, optional=False)
        _param_args.as_tuple(self, 'ksize', ksize, 2)  # checked now, kept as given
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.ksize = ksize
        self.stride = _param_args.as_tuple(self, 'stride', stride, 2)
        self.pad = _param_args.as_tuple(self, 'pad', pad, 2)
        self.dilate = _param_args.as_tuple(self, 'dilate', dilate, 2)
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
                               (self.out_channels, in_channels // self.groups, kh, kw))

    @classmethod
    def from_params(cls, W: VariableOrArray, b: VariableOrArray | None = None,
                    stride: ShapeSpec = 1, pad: ShapeSpec = 0, nobias: bool = False, *,
                    dilate: ShapeSpec = 1, groups: int = 1) -> 'Convolution2D':
        """A Convolution2D layer whose parameters are copies of ``W`` (and ``b``).

        Args:
            W: The filters, of shape ``(out_channels, in_channels / groups, kh, kw)``.
            b: The bias, of ``out_channels`` elements, or None (zeros).
            stride: As in the constructor.
            pad: As in the constructor.
            nobias: If True, the layer has no bias and ``b`` is ignored.
            dilate: As in the constructor.
            groups: As in the constructor.

        Returns:
            The new layer.
        """
        out_channels, in_per_group, kh, kw = W.shape
        if b is not None and b.size != out_channels:
            raise ValueError('Convolution2D.from_params: b has %d elements but W has %d '
                             'output channels' % (b.size, out_channels))
        return cls(in_per_group * groups, out_channels, (kh, kw), stride, pad, nobias,
                   initialW=variable.as_array(W),
                   initial_bias=None if b is None else variable.as_array(b),
                   dilate=dilate, groups=groups)

    def printable_specs(self) -> Iterator:
        """The constructor's arguments, shown by ``str(layer)`` (an inferred
        ``in_channels`` once it is known)."""
        W = self.W.array
        yield 'in_channels', self.in_channels if W is None else W.shape[1] * self.groups
        yield 'out_channels', self.out_channels
        yield 'ksize', self.ksize
        yield 'stride', self.stride
        yield 'pad', self.pad
        yield 'nobias', self.b is None
        yield 'dilate', self.dilate
        yield 'groups', self.groups

    def forward(self, x: VariableOrArray) -> variable.Variable:
        """Applies the convolution.

        Args:
            x: The images, of shape ``(n, in_channels, h, w)``.

        Returns:
            A Variable of shape ``(n, out_channels, h_O, w_O)``.
        """
        if self.W.array is None:
            self._initialize_params(_param_args.channels_of(self, x))
        return convolution_2d.convolution_2d(x, self.W, self.b, self.stride, self.pad,
                                             dilate=self.dilate, groups=self.groups)
