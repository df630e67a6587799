"""The N-dimensional deconvolutional layer, and its 1-d and 3-d forms."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from chainlite import link
from chainlite import variable
from chainlite.functions.connection import deconvolution_nd
from chainlite.links.connection import _param_args

if TYPE_CHECKING:
    from chainlite.types import InitializerSpec, ShapeSpec, VariableOrArray


class DeconvolutionND(link.Link):
    """N-dimensional deconvolutional layer (:func:`~chainlite.functions.deconvolution_nd`).

    ``W`` has shape ``(in_channels, out_channels / groups, k_1, ..., k_N)`` (LeCunNormal by
    default) and ``b`` shape ``(out_channels,)`` (zero by default). With
    ``in_channels=None``, or the short form ``DeconvolutionND(ndim, out_channels, ksize)``,
    ``W`` is created at the first forward from the input's channel count.

    Args:
        ndim: The number of spatial axes ``N``.
        in_channels: The number of input channels, or None to infer it.
        out_channels: The number of output channels.
        ksize: The filter size: an int or ``N`` ints.
        stride: An int or ``N`` ints.
        pad: An int or ``N`` ints: the padding trimmed from the output.
        nobias: If True, the layer has no bias (``b`` is None).
        outsize: The ``N`` output sizes, or None to compute them from the input.
        initialW: The initializer of ``W``: an initializer, an array, a scalar, or None
            (LeCunNormal).
        initial_bias: The initializer of ``b``: an initializer, array, scalar, or None (0).
        dilate: An int or ``N`` ints: the spacing of the filter taps.
        groups: The number of channel groups; both channel counts must be multiples of it.

    Attributes:
        W: The filter Parameter.
        b: The bias Parameter, or None.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> deconv = L.DeconvolutionND(3, 2, 4, ksize=2, stride=2)
        >>> deconv(np.zeros((1, 2, 3, 3, 3), np.float32)).shape, deconv.W.shape
        ((1, 4, 6, 6, 6), (2, 4, 2, 2, 2))
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
                 nobias: bool = False, outsize: tuple[int, ...] | None = None,
                 initialW: InitializerSpec = None, initial_bias: InitializerSpec = None,
                 dilate: ShapeSpec = 1, groups: int = 1) -> None:
        super().__init__()
        self.outsize = outsize
        _param_args.init_nd(self, ndim, in_channels, out_channels, ksize, stride, pad, nobias,
                            initialW, initial_bias, dilate, groups)

    def _initialize_params(self, in_channels: int) -> None:
        _param_args.check_groups(self, in_channels, self.out_channels, self.groups)
        _param_args.initialize(self, 'initialW', self.W,
                               (in_channels, self.out_channels // self.groups) + self.ksize)

    def forward(self, x: VariableOrArray) -> variable.Variable:
        """Applies the deconvolution.

        Args:
            x: The inputs, of shape ``(n, in_channels, d_1, ..., d_N)``.

        Returns:
            A Variable of shape ``(n, out_channels, l_1, ..., l_N)``.
        """
        if self.W.array is None:
            self._initialize_params(_param_args.channels_of(self, x))
        return deconvolution_nd.deconvolution_nd(x, self.W, b=self.b, stride=self.stride,
                                                 pad=self.pad, outsize=self.outsize,
                                                 dilate=self.dilate, groups=self.groups)


class Deconvolution1D(DeconvolutionND):
    """One-dimensional deconvolutional layer: :class:`DeconvolutionND` with ``ndim=1``.

    Args:
        in_channels: The number of input channels, or None to infer it.
        out_channels: The number of output channels.
        ksize: The filter length.
        stride: The step between filter copies in the output.
        pad: The padding trimmed from both ends of the output.
        nobias: If True, the layer has no bias.
        outsize: The output length as a 1-tuple, or None to compute it.
        initialW: The initializer of ``W`` (None: LeCunNormal).
        initial_bias: The initializer of ``b`` (None: 0).
        dilate: The spacing of the filter taps.
        groups: The number of channel groups.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> L.Deconvolution1D(2, 4, 3)(np.zeros((1, 2, 8), np.float32)).shape
        (1, 4, 10)
    """

    def __init__(self, in_channels: Optional[int], out_channels: int, ksize: ShapeSpec,
                 stride: ShapeSpec = 1, pad: ShapeSpec = 0, nobias: bool = False,
                 outsize: tuple[int, ...] | None = None, initialW: InitializerSpec = None,
                 initial_bias: InitializerSpec = None, dilate: ShapeSpec = 1,
                 groups: int = 1) -> None:
        super().__init__(1, in_channels, out_channels, ksize, stride, pad, nobias, outsize,
                         initialW, initial_bias, dilate, groups)


class Deconvolution3D(DeconvolutionND):
    """Three-dimensional deconvolutional layer: :class:`DeconvolutionND` with ``ndim=3``.

    Args:
        in_channels: The number of input channels, or None to infer it.
        out_channels: The number of output channels.
        ksize: The filter size: an int or 3 ints.
        stride: An int or 3 ints.
        pad: An int or 3 ints: the padding trimmed from the output.
        nobias: If True, the layer has no bias.
        outsize: The 3 output sizes, or None to compute them.
        initialW: The initializer of ``W`` (None: LeCunNormal).
        initial_bias: The initializer of ``b`` (None: 0).
        dilate: An int or 3 ints: the spacing of the filter taps.
        groups: The number of channel groups.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> L.Deconvolution3D(2, 4, 2, stride=2)(np.zeros((1, 2, 2, 2, 2), np.float32)).shape
        (1, 4, 4, 4, 4)
    """

    def __init__(self, in_channels: Optional[int], out_channels: int, ksize: ShapeSpec,
                 stride: ShapeSpec = 1, pad: ShapeSpec = 0, nobias: bool = False,
                 outsize: tuple[int, ...] | None = None, initialW: InitializerSpec = None,
                 initial_bias: InitializerSpec = None, dilate: ShapeSpec = 1,
                 groups: int = 1) -> None:
        super().__init__(3, in_channels, out_channels, ksize, stride, pad, nobias, outsize,
                         initialW, initial_bias, dilate, groups)
