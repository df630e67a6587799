"""The N-dimensional convolutional layer, and its 1-d and 3-d forms."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from chainlite import link
from chainlite import variable
from chainlite.functions.connection import convolution_nd
from chainlite.links.connection import _param_args

if TYPE_CHECKING:
    from chainlite.types import InitializerSpec, ShapeSpec, VariableOrArray


class ConvolutionND(link.Link):
    """N-dimensional convolutional layer (:func:`~chainlite.functions.convolution_nd`).

    ``W`` has shape ``(out_channels, in_channels / groups, k_1, ..., k_N)`` (LeCunNormal by
    default) and ``b`` shape ``(out_channels,)`` (zero by default). With
    ``in_channels=None``, or the short form ``ConvolutionND(ndim, out_channels, ksize)``,
    ``W`` is created at the first forward from the input's channel count.

    Args:
        ndim: The number of spatial axes ``N``.
        in_channels: The number of input channels, or None to infer it.
        out_channels: The number of output channels.
        ksize: The filter size: an int or ``N`` ints.
        stride: An int or ``N`` ints.
        pad: An int or ``N`` ints: zeros added on both sides of each spatial axis.
        nobias: If True, the layer has no bias (``b`` is None).
        initialW: The initializer of ``W``: an initializer, an array, a scalar, or None
            (LeCunNormal).
        initial_bias: The initializer of ``b``: an initializer, array, scalar, or None (0).
        cover_all: Add window positions so that every input element is covered.
        dilate: An int or ``N`` ints: the spacing of the filter taps.
        groups: The number of channel groups; both channel counts must be multiples of it.

    Attributes:
        W: The filter Parameter.
        b: The bias Parameter, or None.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> conv = L.ConvolutionND(3, 2, 4, ksize=3, pad=1)
        >>> conv(np.zeros((1, 2, 5, 5, 5), np.float32)).shape, conv.W.shape
        ((1, 4, 5, 5, 5), (4, 2, 3, 3, 3))
    """

    # Set by _param_args.init_nd.
    out_channels: int
    ksize: tuple[int, ...]
    stride: ShapeSpec
    pad: ShapeSpec
    dilate: tuple[int, ...]
    groups: int
    W: variable.Parameter
    b: Optional[variable.Parameter]

    def __init__(self, ndim: int, in_channels: Optional[int], out_channels: int,
                 ksize: ShapeSpec | None = None, stride: ShapeSpec = 1, pad: ShapeSpec = 0,
                 nobias: bool = False, initialW: InitializerSpec = None,
                 initial_bias: InitializerSpec = None, cover_all: bool = False,
                 dilate: ShapeSpec = 1, groups: int = 1) -> None:
        super().__init__()
        self.cover_all = cover_all
        _param_args.init_nd(self, ndim, in_channels, out_channels, ksize, stride, pad, nobias,
                            initialW, initial_bias, dilate, groups)

    def _initialize_params(self, in_channels: int) -> None:
        _param_args.check_groups(self, in_channels, self.out_channels, self.groups)
        _param_args.initialize(self, 'initialW', self.W,
                               (self.out_channels, in_channels // self.groups) + self.ksize)

    @classmethod
    def from_params(cls, W: VariableOrArray, b: VariableOrArray | None = None,
                    stride: ShapeSpec = 1, pad: ShapeSpec = 0, nobias: bool = False, *,
                    cover_all: bool = False, dilate: ShapeSpec = 1,
                    groups: int = 1) -> 'ConvolutionND':
        """A layer of this class whose parameters are copies of ``W`` (and ``b``).

        Args:
            W: The filters, of shape ``(out_channels, in_channels / groups, k_1, ..., k_N)``.
            b: The bias, of ``out_channels`` elements, or None (zeros).
            stride: As in the constructor.
            pad: As in the constructor.
            nobias: If True, the layer has no bias and ``b`` is ignored.
            cover_all: As in the constructor.
            dilate: As in the constructor.
            groups: As in the constructor.

        Returns:
            The new layer.
        """
        out_channels, in_per_group, *ksize = W.shape
        if b is not None and b.size != out_channels:
            raise ValueError('%s.from_params: b has %d elements but W has %d output channels'
                             % (cls.__name__, b.size, out_channels))
        # Through ConvolutionND.__init__, so that subclasses (fixed ndim) work too.
        layer = cls.__new__(cls)
        ConvolutionND.__init__(layer, len(ksize), in_per_group * groups, out_channels,
                               tuple(ksize), stride, pad, nobias, variable.as_array(W),
                               None if b is None else variable.as_array(b), cover_all,
                               dilate, groups)
        return layer

    def forward(self, x: VariableOrArray) -> variable.Variable:
        """Applies the convolution.

        Args:
            x: The inputs, of shape ``(n, in_channels, d_1, ..., d_N)``.

        Returns:
            A Variable of shape ``(n, out_channels, l_1, ..., l_N)``.
        """
        if self.W.array is None:
            self._initialize_params(_param_args.channels_of(self, x))
        return convolution_nd.convolution_nd(x, self.W, self.b, self.stride, self.pad,
                                             cover_all=self.cover_all, dilate=self.dilate,
                                             groups=self.groups)


class Convolution1D(ConvolutionND):
    """One-dimensional convolutional layer: :class:`ConvolutionND` with ``ndim=1``.

    Args:
        in_channels: The number of input channels, or None to infer it.
        out_channels: The number of output channels.
        ksize: The filter length.
        stride: The step between window positions.
        pad: Zeros added on both ends.
        nobias: If True, the layer has no bias.
        initialW: The initializer of ``W`` (None: LeCunNormal).
        initial_bias: The initializer of ``b`` (None: 0).
        cover_all: Add window positions so that every input element is covered.
        dilate: The spacing of the filter taps.
        groups: The number of channel groups.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> L.Convolution1D(2, 4, 3)(np.zeros((1, 2, 10), np.float32)).shape
        (1, 4, 8)
    """

    def __init__(self, in_channels: Optional[int], out_channels: int, ksize: ShapeSpec,
                 stride: ShapeSpec = 1, pad: ShapeSpec = 0, nobias: bool = False,
                 initialW: InitializerSpec = None, initial_bias: InitializerSpec = None,
                 cover_all: bool = False, dilate: ShapeSpec = 1, groups: int = 1) -> None:
        super().__init__(1, in_channels, out_channels, ksize, stride, pad, nobias, initialW,
                         initial_bias, cover_all, dilate, groups)


class Convolution3D(ConvolutionND):
    """Three-dimensional convolutional layer: :class:`ConvolutionND` with ``ndim=3``.

    Args:
        in_channels: The number of input channels, or None to infer it.
        out_channels: The number of output channels.
        ksize: The filter size: an int or 3 ints.
        stride: An int or 3 ints.
        pad: An int or 3 ints: zeros added on both sides.
        nobias: If True, the layer has no bias.
        initialW: The initializer of ``W`` (None: LeCunNormal).
        initial_bias: The initializer of ``b`` (None: 0).
        cover_all: Add window positions so that every input element is covered.
        dilate: An int or 3 ints: the spacing of the filter taps.
        groups: The number of channel groups.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> L.Convolution3D(2, 4, 3)(np.zeros((1, 2, 4, 4, 4), np.float32)).shape
        (1, 4, 2, 2, 2)
    """

    def __init__(self, in_channels: Optional[int], out_channels: int, ksize: ShapeSpec,
                 stride: ShapeSpec = 1, pad: ShapeSpec = 0, nobias: bool = False,
                 initialW: InitializerSpec = None, initial_bias: InitializerSpec = None,
                 cover_all: bool = False, dilate: ShapeSpec = 1, groups: int = 1) -> None:
        super().__init__(3, in_channels, out_channels, ksize, stride, pad, nobias, initialW,
                         initial_bias, cover_all, dilate, groups)
