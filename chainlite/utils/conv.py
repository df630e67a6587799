"""Convolution shape helpers and patch extraction on 2-d images, as ``chainer.utils.conv``.

The functions here work on arrays (no graph): ``im2col_cpu`` copies every window of an
``(n, c, h, w)`` image into an ``(n, c, kh, kw, out_h, out_w)`` array and ``col2im_cpu``
sums such an array back into an image. They take NumPy or CuPy arrays alike (the results
on the inputs' device); ``im2col_gpu`` and ``col2im_gpu`` are the same on a GPU.
"""
from __future__ import annotations

from typing import Any

import numpy

from chainlite import backend

# Typed Any: NumPy 2.0's stubs reject the tuple of axes it takes (later releases accept it).
_sliding_window_view: Any = numpy.lib.stride_tricks.sliding_window_view


def get_conv_outsize(size: int, k: int, s: int, p: int, cover_all: bool = False,
                     d: int = 1) -> int:
    """Returns the length of a convolution's output axis.

    Args:
        size: Length of the input axis.
        k: Window (kernel) size.
        s: Stride.
        p: Padding on each side.
        cover_all: Add the window positions needed to cover every input element (the last
            ones run past the far padding by up to ``s - 1``).
        d: Dilation.

    Returns:
        The number of window positions.

    Example:
        >>> from chainlite.utils.conv import get_conv_outsize
        >>> get_conv_outsize(7, 3, 2, 1), get_conv_outsize(8, 3, 2, 0, cover_all=True)
        (4, 4)
    """
    dk = k + (k - 1) * (d - 1)
    if cover_all:
        return (size + p * 2 - dk + s - 1) // s + 1
    return (size + p * 2 - dk) // s + 1


def get_deconv_outsize(size: int, k: int, s: int, p: int, cover_all: bool = False,
                       d: int = 1) -> int:
    """Returns the length of a transposed convolution's output axis.

    The inverse of :func:`get_conv_outsize`: a convolution with the same arguments maps the
    result back to ``size``.

    Args:
        size: Length of the input axis.
        k: Window (kernel) size.
        s: Stride.
        p: Padding on each side.
        cover_all: As in :func:`get_conv_outsize`.
        d: Dilation.

    Returns:
        The output length.

    Example:
        >>> from chainlite.utils.conv import get_deconv_outsize
        >>> get_deconv_outsize(4, 3, 2, 1)
        7
    """
    dk = k + (k - 1) * (d - 1)
    if cover_all:
        return s * (size - 1) + dk - s + 1 - 2 * p
    return s * (size - 1) + dk - 2 * p


def _pad(img: numpy.ndarray, pads: list, pval: Any) -> numpy.ndarray:
    if not any(lo or hi for lo, hi in pads):
        return img
    xp = backend.get_array_module(img)
    return xp.pad(img, [(0, 0)] * (img.ndim - len(pads)) + pads, mode='constant',
                  constant_values=(pval,))


def im2col_nd_copy(img: numpy.ndarray, ksize: tuple, stride: tuple, pad: tuple, pval: Any,
                   cover_all: bool, dilate: tuple, outsize: tuple | None = None
                   ) -> numpy.ndarray:
    """The windows of ``img`` (spatial axes from axis 2) copied into a new array.

    Args:
        img: An array of shape ``(n, c) + size``.
        ksize, stride, pad, dilate: Tuples with one int per spatial axis.
        pval: The value of the padding.
        cover_all: As in :func:`get_conv_outsize`.
        outsize: The output lengths; computed from the others if None.

    Returns:
        An array of shape ``(n, c) + ksize + outsize``.
    """
    size = img.shape[2:]
    if outsize is None:
        outsize = tuple(get_conv_outsize(n, k, s, p, cover_all, d)
                        for n, k, s, p, d in zip(size, ksize, stride, pad, dilate))
    # Pad the far side far enough for the last window of every axis.
    pads = [(p, max(0, (o - 1) * s + (k - 1) * d + 1 - n - p))
            for n, k, s, p, d, o in zip(size, ksize, stride, pad, dilate, outsize)]
    img = _pad(img, pads, pval)
    nd = len(ksize)
    xp = backend.get_array_module(img)
    window_view = (_sliding_window_view if xp is numpy
                   else xp.lib.stride_tricks.sliding_window_view)
    windows = window_view(
        img, tuple((k - 1) * d + 1 for k, d in zip(ksize, dilate)),
        axis=tuple(range(2, 2 + nd)))
    pick = ((slice(None),) * 2
            + tuple(slice(None, (o - 1) * s + 1, s) for o, s in zip(outsize, stride))
            + tuple(slice(None, None, d) for d in dilate))
    windows = windows[pick]
    order = (0, 1) + tuple(range(2 + nd, 2 + 2 * nd)) + tuple(range(2, 2 + nd))
    return xp.ascontiguousarray(windows.transpose(order))


def col2im_nd_sum(col: numpy.ndarray, stride: tuple, pad: tuple, size: tuple,
                  dilate: tuple) -> numpy.ndarray:
    """Sums windows ``col`` of shape ``(n, c) + ksize + outsize`` into an image of ``size``.

    The transpose of :func:`im2col_nd_copy` (padding dropped).
    """
    nd = len(size)
    ksize = col.shape[2:2 + nd]
    outsize = col.shape[2 + nd:]
    full = tuple(max(n + 2 * p, (o - 1) * s + (k - 1) * d + 1)
                 for n, p, o, s, k, d in zip(size, pad, outsize, stride, ksize, dilate))
    img = backend.get_array_module(col).zeros(col.shape[:2] + full, dtype=col.dtype)
    for tap in numpy.ndindex(*ksize):
        dst = (slice(None),) * 2 + tuple(
            slice(i * d, i * d + (o - 1) * s + 1, s)
            for i, d, o, s in zip(tap, dilate, outsize, stride))
        img[dst] += col[(slice(None),) * 2 + tap]
    return img[(slice(None),) * 2 + tuple(slice(p, p + n) for n, p in zip(size, pad))]


def im2col_cpu(img: numpy.ndarray, kh: int, kw: int, sy: int, sx: int, ph: int, pw: int,
               pval: Any = 0, cover_all: bool = False, dy: int = 1, dx: int = 1,
               out_h: int | None = None, out_w: int | None = None) -> numpy.ndarray:
    """Copies every ``kh x kw`` window of an ``(n, c, h, w)`` image into a new array.

    Args:
        img: The image.
        kh, kw: Window size.
        sy, sx: Strides.
        ph, pw: Padding.
        pval: The padding value.
        cover_all: As in :func:`get_conv_outsize`.
        dy, dx: Dilation.
        out_h, out_w: The output size; computed if None.

    Returns:
        An array of shape ``(n, c, kh, kw, out_h, out_w)``.

    Example:
        >>> import numpy
        >>> from chainlite.utils.conv import im2col_cpu
        >>> im2col_cpu(numpy.zeros((1, 2, 5, 5)), 3, 3, 1, 1, 1, 1).shape
        (1, 2, 3, 3, 5, 5)
    """
    outsize = None if out_h is None or out_w is None else (out_h, out_w)
    if outsize is None:
        outsize = (get_conv_outsize(img.shape[2], kh, sy, ph, cover_all, dy) if out_h is None
                   else out_h,
                   get_conv_outsize(img.shape[3], kw, sx, pw, cover_all, dx) if out_w is None
                   else out_w)
    return im2col_nd_copy(img, (kh, kw), (sy, sx), (ph, pw), pval, cover_all, (dy, dx),
                          outsize)


def col2im_cpu(col: numpy.ndarray, sy: int, sx: int, ph: int, pw: int, h: int, w: int,
               dy: int = 1, dx: int = 1) -> numpy.ndarray:
    """Sums windows ``(n, c, kh, kw, out_h, out_w)`` back into an ``(n, c, h, w)`` image.

    The transpose of :func:`im2col_cpu`: each pixel gets the sum of the window entries that
    read it.

    Args:
        col: The windows.
        sy, sx: Strides.
        ph, pw: Padding.
        h, w: The image size.
        dy, dx: Dilation.

    Returns:
        The image.

    Example:
        >>> import numpy
        >>> from chainlite.utils.conv import col2im_cpu, im2col_cpu
        >>> col = im2col_cpu(numpy.ones((1, 1, 3, 3)), 2, 2, 1, 1, 0, 0)
        >>> col2im_cpu(col, 1, 1, 0, 0, 3, 3)[0, 0]
        array([[1., 2., 1.],
               [2., 4., 2.],
               [1., 2., 1.]])
    """
    return col2im_nd_sum(col, (sy, sx), (ph, pw), (h, w), (dy, dx))


im2col = im2col_cpu
col2im = col2im_cpu


def im2col_gpu(img: Any, kh: int, kw: int, sy: int, sx: int, ph: int, pw: int,
               cover_all: bool = False, dy: int = 1, dx: int = 1, out_h: int | None = None,
               out_w: int | None = None) -> Any:
    """:func:`im2col_cpu` on a GPU (CuPy) image (Chainer's CUDA kernel; no ``pval``: 0).

    Args:
        img: The image, a CuPy array of shape ``(n, c, h, w)``.
        kh, kw: Window size.
        sy, sx: Strides.
        ph, pw: Padding.
        cover_all: As in :func:`get_conv_outsize`.
        dy, dx: Dilation.
        out_h, out_w: The output size; computed if None.

    Returns:
        A CuPy array of shape ``(n, c, kh, kw, out_h, out_w)``.

    Raises:
        RuntimeError: If CUDA is not available, as Chainer does without CuPy.
    """
    from chainlite.backends import cuda
    cuda.check_cuda_available()
    return im2col_cpu(img, kh, kw, sy, sx, ph, pw, 0, cover_all, dy, dx, out_h, out_w)


def col2im_gpu(col: Any, sy: int, sx: int, ph: int, pw: int, h: int, w: int, dy: int = 1,
               dx: int = 1) -> Any:
    """:func:`col2im_cpu` on GPU (CuPy) windows (Chainer's CUDA kernel).

    Args:
        col: The windows, a CuPy array of shape ``(n, c, kh, kw, out_h, out_w)``.
        sy, sx: Strides.
        ph, pw: Padding.
        h, w: The image size.
        dy, dx: Dilation.

    Returns:
        The CuPy image ``(n, c, h, w)``.

    Raises:
        RuntimeError: If CUDA is not available, as Chainer does without CuPy.
    """
    from chainlite.backends import cuda
    cuda.check_cuda_available()
    return col2im_cpu(col, sy, sx, ph, pw, h, w, dy, dx)
