"""Bilinear (and N-linear) resampling filters for (de)convolution weights."""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy

from chainlite import backend
from chainlite import initializer

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec


class _ResamplingFilter(initializer.Initializer):
    # Each channel i gets the N-linear kernel at W[i, i] (or W[i, 0] with one output channel).

    _normalize = False

    def __init__(self, interpolation: str = 'linear', dtype: DTypeSpec = None) -> None:
        if interpolation != 'linear':
            raise ValueError('%s: interpolation must be \'linear\', got %r'
                             % (type(self).__name__, interpolation))
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
        k = ksize[0]
        factor = (k + 1) // 2
        center = factor - 1 if k % 2 == 1 else factor - 0.5
        line = 1 - numpy.abs(numpy.arange(k) - center) / factor
        kernel = functools.reduce(numpy.multiply.outer, [line] * len(ksize))
        if self._normalize:
            kernel /= kernel.sum()
        xp = backend.get_array_module(array)
        array[...] = 0
        channels = xp.arange(in_c)
        array[channels, channels if out_c == in_c else 0] = xp.asarray(kernel)


class UpsamplingDeconvFilter(_ResamplingFilter):
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


class DownsamplingConvFilter(_ResamplingFilter):
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

    _normalize = True
