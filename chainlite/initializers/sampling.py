"""Bilinear (and N-linear) resampling filters for (de)convolution weights."""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy

from chainlite import backend
from chainlite import initializer

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec


def _get_linear_filter(size: int, ndim: int, upsampling: bool = True) -> numpy.ndarray:
    # The N-linear kernel of ``size`` per axis over ``ndim`` axes: peak 1 for upsampling,
    # summing to 1 for downsampling.
    factor = (size + 1) // 2
    center = factor - 1 if size % 2 == 1 else factor - 0.5
    line = 1 - numpy.abs(numpy.arange(size) - center) / factor
    kernel = functools.reduce(numpy.multiply.outer, [line] * ndim, numpy.ones(()))
    if not upsampling:
        kernel = kernel / kernel.sum()
    return kernel


class _SamplingFilter(initializer.Initializer):
    # Each channel i gets the N-linear kernel at W[i, i] (or W[i, 0] with one output channel).

    def __init__(self, upsampling: bool = True, interpolation: str = 'linear',
                 dtype: DTypeSpec = None) -> None:
        if interpolation != 'linear':
            raise ValueError('%s: interpolation must be \'linear\', got %r'
                             % (type(self).__name__, interpolation))
        self._upsampling = upsampling
        self.interpolation = interpolation
        super().__init__(dtype)

    def __call__(self, array: numpy.ndarray) -> None:
        self._check_dtype(array)
        name = type(self).__name__
        if array.ndim < 3:
            raise ValueError('%s: the array must be (in_channels, out_channels, *ksize), got '
                             'shape %s' % (name, array.shape))
        in_c, out_c = array.shape[:2]
        if out_c not in (in_c, 1):
            raise ValueError('%s: out_channels must equal in_channels or be 1, got shape %s'
                             % (name, array.shape))
        ksize = array.shape[2:]
        if len(set(ksize)) != 1:
            raise ValueError('%s: the kernel must have the same size on every axis, got %s'
                             % (name, ksize))
        kernel = _get_linear_filter(ksize[0], len(ksize), self._upsampling)
        xp = backend.get_array_module(array)
        array[...] = 0
        channels = xp.arange(in_c)
        array[channels, channels if out_c == in_c else 0] = xp.asarray(kernel)


class UpsamplingDeconvFilter(_SamplingFilter):
    """Fills a deconvolution weight with the N-linear upsampling kernel, channel by channel.

    For :class:`~chainlite.links.Deconvolution2D` / ``DeconvolutionND`` with
    ``stride = (ksize + 1) // 2``: the kernel's peak is 1, so upsampled pixels interpolate
    their neighbours. Long et al., https://arxiv.org/abs/1411.4038.

    Args:
        interpolation: Only ``'linear'``.
        dtype: The dtype of the arrays it makes (None: ``chainlite.config.dtype``).

    Example:
        >>> import numpy as np
        >>> from chainlite import initializers
        >>> W = initializers.generate_array(initializers.UpsamplingDeconvFilter(), (1, 1, 4), np)
        >>> W
        array([[[0.25, 0.75, 0.75, 0.25]]], dtype=float32)
    """

    def __init__(self, interpolation: str = 'linear', dtype: DTypeSpec = None) -> None:
        super().__init__(True, interpolation, dtype)


class DownsamplingConvFilter(_SamplingFilter):
    """Fills a convolution weight with the N-linear downsampling kernel, channel by channel.

    For :class:`~chainlite.links.Convolution2D` / ``ConvolutionND`` with
    ``stride = (ksize + 1) // 2``: the kernel sums to 1, so it averages.

    Args:
        interpolation: Only ``'linear'``.
        dtype: The dtype of the arrays it makes (None: ``chainlite.config.dtype``).

    Example:
        >>> import numpy as np
        >>> from chainlite import initializers
        >>> W = initializers.generate_array(initializers.DownsamplingConvFilter(), (1, 1, 4), np)
        >>> W
        array([[[0.125, 0.375, 0.375, 0.125]]], dtype=float32)
    """

    def __init__(self, interpolation: str = 'linear', dtype: DTypeSpec = None) -> None:
        super().__init__(False, interpolation, dtype)
