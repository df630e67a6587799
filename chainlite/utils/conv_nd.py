"""N-dimensional patch extraction, as ``chainer.utils.conv_nd``."""
from __future__ import annotations

from typing import Any

import numpy

from chainlite.utils import conv
from chainlite.utils.conv import get_conv_outsize  # noqa: F401  (Chainer's module has it too)


class _LengthError(ValueError, AssertionError):
    """A sequence of the wrong length: a ValueError, and the AssertionError of Chainer."""


def as_tuple(x: Any, n: int) -> tuple:
    """Returns ``x`` as a tuple of length ``n`` (an int repeated; a sequence checked).

    Args:
        x: An int or a sequence of ``n`` ints.
        n: The length.

    Returns:
        A tuple.

    Raises:
        ValueError: If a sequence does not have ``n`` elements (it is also an
            ``AssertionError``, as Chainer raises).

    Example:
        >>> from chainlite.utils.conv_nd import as_tuple
        >>> as_tuple(2, 3), as_tuple((1, 2), 2)
        ((2, 2, 2), (1, 2))
    """
    if hasattr(x, '__getitem__'):
        if len(x) != n:
            raise _LengthError('as_tuple: expected %d values, got %r' % (n, x))
        return tuple(x)
    return (x,) * n


def im2col_nd_cpu(img: numpy.ndarray, ksize: tuple, stride: tuple, pad: tuple, pval: Any = 0,
                  cover_all: bool = False, dilate: Any = 1) -> numpy.ndarray:
    """Copies every window of an ``(n, c, d_1, ..., d_N)`` image into a new array.

    Args:
        img: The image.
        ksize, stride, pad: One int per spatial axis.
        pval: The padding value.
        cover_all: As in :func:`chainlite.utils.conv.get_conv_outsize`.
        dilate: An int or one int per spatial axis.

    Returns:
        An array of shape ``(n, c) + ksize + outsize``.

    Raises:
        ValueError: If ``ksize``, ``stride`` or ``pad`` does not have one value per spatial
            axis (also an ``AssertionError``, as in Chainer).

    Example:
        >>> import numpy
        >>> from chainlite.utils.conv_nd import im2col_nd_cpu
        >>> im2col_nd_cpu(numpy.zeros((1, 1, 4, 4, 4)), (2, 2, 2), (2, 2, 2), (0, 0, 0)).shape
        (1, 1, 2, 2, 2, 2, 2, 2)
    """
    nd = img.ndim - 2
    for name, value in (('ksize', ksize), ('stride', stride), ('pad', pad)):
        if len(value) != nd:
            raise _LengthError('im2col_nd_cpu: %s must have one value per spatial axis of the '
                               '%d-d image (%d), got %r' % (name, img.ndim, nd, value))
    return conv.im2col_nd_copy(img, tuple(ksize), tuple(stride), tuple(pad), pval, cover_all,
                               as_tuple(dilate, nd))


def col2im_nd_cpu(col: numpy.ndarray, stride: tuple, pad: tuple, dims: tuple,
                  dilate: Any = 1) -> numpy.ndarray:
    """Sums windows ``(n, c) + ksize + outsize`` back into an ``(n, c) + dims`` image.

    Args:
        col: The windows.
        stride, pad: One int per spatial axis.
        dims: The image's spatial shape.
        dilate: An int or one int per spatial axis.

    Returns:
        The image.

    Raises:
        ValueError: If ``col``, ``stride`` or ``pad`` does not match the number of spatial
            axes of ``dims`` (also an ``AssertionError``, as in Chainer).

    Example:
        >>> import numpy
        >>> from chainlite.utils.conv_nd import col2im_nd_cpu, im2col_nd_cpu
        >>> col = im2col_nd_cpu(numpy.ones((1, 1, 3)), (2,), (1,), (0,))
        >>> col2im_nd_cpu(col, (1,), (0,), (3,))
        array([[[1., 2., 1.]]])
    """
    dims = tuple(dims)
    nd = len(dims)
    if col.ndim != 2 + 2 * nd:
        raise _LengthError('col2im_nd_cpu: col must have shape (n, c) + ksize + outsize for '
                           'the %d spatial axes of dims %r, got %r' % (nd, dims, col.shape))
    for name, value in (('stride', stride), ('pad', pad)):
        if len(value) != nd:
            raise _LengthError('col2im_nd_cpu: %s must have one value per spatial axis (%d), '
                               'got %r' % (name, nd, value))
    return conv.col2im_nd_sum(col, tuple(stride), tuple(pad), dims, as_tuple(dilate, len(dims)))


im2col_nd = im2col_nd_cpu
col2im_nd = col2im_nd_cpu


def im2col_nd_gpu(img: Any, ksize: tuple, stride: tuple, pad: tuple, cover_all: bool = False,
                  dilate: Any = 1) -> Any:
    """:func:`im2col_nd_cpu` on a GPU (CuPy) image (Chainer's CUDA kernel; padding 0).

    Args:
        img: The image, a CuPy array of shape ``(n, c, d_1, ..., d_N)``.
        ksize, stride, pad: One int per spatial axis.
        cover_all: As in :func:`chainlite.utils.conv.get_conv_outsize`.
        dilate: An int or one int per spatial axis.

    Returns:
        A CuPy array of shape ``(n, c) + ksize + outsize``.

    Raises:
        RuntimeError: If CUDA is not available, as Chainer does without CuPy.
    """
    from chainlite.backends import cuda
    cuda.check_cuda_available()
    return im2col_nd_cpu(img, ksize, stride, pad, 0, cover_all, dilate)


def col2im_nd_gpu(col: Any, stride: tuple, pad: tuple, dims: tuple, dilate: Any = 1) -> Any:
    """:func:`col2im_nd_cpu` on GPU (CuPy) windows (Chainer's CUDA kernel).

    Args:
        col: The windows, a CuPy array of shape ``(n, c) + ksize + outsize``.
        stride, pad: One int per spatial axis.
        dims: The image's spatial shape.
        dilate: An int or one int per spatial axis.

    Returns:
        The CuPy image ``(n, c) + dims``.

    Raises:
        RuntimeError: If CUDA is not available, as Chainer does without CuPy.
    """
    from chainlite.backends import cuda
    cuda.check_cuda_available()
    return col2im_nd_cpu(col, stride, pad, dims, dilate)
