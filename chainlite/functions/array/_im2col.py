"""Patches of images as strided views (im2col) and their sum back into images (col2im).

Shared by F.im2col and the convolutions, for any number of spatial axes. The spatial axes
of an image are consecutive, starting at ``first_axis``; the axes before them (``lead``) and
after them (``trail``) ride along. A ``col`` array has the shape
``lead + ksize + outsize + trail``: in 2-d with ``lead = (n, c)``,
``col[:, :, i, j, y, x]`` is the padded input at row ``y * sy + i * dy - ph`` and column
``x * sx + j * dx - pw``.
"""
from __future__ import annotations

import itertools
from typing import Any, Sequence

from chainlite import backend


def as_tuple(v: Any, n: int) -> tuple[int, ...]:
    """``v`` as a tuple of ``n`` ints: an int is used for every axis."""
    if isinstance(v, (tuple, list)):
        if len(v) != n:
            raise ValueError('expected an int or %d ints, got %r' % (n, v))
        return tuple(int(a) for a in v)
    return (int(v),) * n


def pair(v: int | Sequence[int]) -> tuple[int, ...]:
    """``v`` as a pair of ints: an int is used for both axes."""
    if isinstance(v, (tuple, list)) and len(v) != 2:
        raise ValueError('expected an int or a pair of ints, got %r' % (v,))
    return as_tuple(v, 2)


def get_conv_outsize(size: int, k: int, s: int, p: int, cover_all: bool = False,
                     d: int = 1) -> int:
    """Number of window positions along one axis (Chainer's formula).

    Args:
        size: Length of the input axis.
        k: Window size.
        s: Stride.
        p: Padding on each side.
        cover_all: Add positions so that every input element is covered, running over the
            far padding by up to ``s - 1``.
        d: Dilation.
    """
    dk = k + (k - 1) * (d - 1)
    if cover_all:
        return (size + p * 2 - dk + s - 1) // s + 1
    return (size + p * 2 - dk) // s + 1


def get_deconv_outsize(size: int, k: int, s: int, p: int, cover_all: bool = False,
                       d: int = 1) -> int:
    """Length of a transposed convolution's output axis (the inverse of get_conv_outsize)."""
    dk = k + (k - 1) * (d - 1)
    if cover_all:
        return s * (size - 1) + dk - s + 1 - 2 * p
    return s * (size - 1) + dk - 2 * p


def _padded_size(size, out, k, s, p, d):
    # The far side gets the extra padding that cover_all windows run into.
    return max(size + 2 * p, (out - 1) * s + (k - 1) * d + 1)


def im2col_nd(x, ksize, stride, pad, cover_all=False, dilate=None, first_axis=2):
    """The patches of ``x`` as a read-only strided view.

    Args:
        x: An array whose spatial axes start at ``first_axis``.
        ksize, stride, pad, dilate: Tuples with one int per spatial axis (``dilate=None``:
            no dilation).
        cover_all: Add the window positions that cover every input element.
        first_axis: The first spatial axis.

    Returns:
        An array of shape ``lead + ksize + outsize + trail`` that shares memory with ``x``,
        or with a C-contiguous (and, where padding is needed, zero-padded) copy of it.
    """
    nd = len(ksize)
    dilate = dilate or (1,) * nd
    axes = tuple(range(first_axis, first_axis + nd))
    size = x.shape[first_axis:first_axis + nd]
    out = tuple(get_conv_outsize(n, k, s, p, cover_all, d)
                for n, k, s, p, d in zip(size, ksize, stride, pad, dilate))
    padded = tuple(_padded_size(*a) for a in zip(size, out, ksize, stride, pad, dilate))
    xp = backend.get_array_module(x)
    if padded != size:
        buf = xp.zeros(x.shape[:first_axis] + padded + x.shape[first_axis + nd:], x.dtype)
        buf[_interior(first_axis, size, pad)] = x
        x = buf
    else:
        # Copying the patches later reads a contiguous image faster than a strided one.
        x = xp.ascontiguousarray(x)
    # Every dilated window at every position, then the strided positions and dilated taps.
    windows = xp.lib.stride_tricks.sliding_window_view(
        x, tuple((k - 1) * d + 1 for k, d in zip(ksize, dilate)), axis=axes)
    pick = ((slice(None),) * first_axis
            + tuple(slice(None, (o - 1) * s + 1, s) for o, s in zip(out, stride))
            + (slice(None),) * (x.ndim - first_axis - nd)
            + tuple(slice(None, None, d) for d in dilate))
    windows = windows[pick]
    # The window axes come last from sliding_window_view; move them before the positions.
    order = (tuple(range(first_axis)) + tuple(range(x.ndim, x.ndim + nd))
             + tuple(range(first_axis, x.ndim)))
    return windows.transpose(order)


def col2im_nd(col, stride, pad, size, dilate=None, first_axis=2):
    """Sums the patches ``col`` back into an image: the transpose of :func:`im2col_nd`.

    Each image element gets the sum of every patch entry that read it, with one strided
    slice addition per kernel tap.

    Args:
        col: An array of shape ``lead + ksize + outsize + trail`` (``lead`` has
            ``first_axis`` axes).
        stride, pad, dilate: Tuples with one int per spatial axis.
        size: The spatial shape of the image.
        first_axis: The first spatial axis of the image (``len(lead)``).

    Returns:
        A new array of shape ``lead + size + trail``.
    """
    nd = len(size)
    dilate = dilate or (1,) * nd
    lead = col.shape[:first_axis]
    ksize = col.shape[first_axis:first_axis + nd]
    out = col.shape[first_axis + nd:first_axis + 2 * nd]
    trail = col.shape[first_axis + 2 * nd:]
    padded = tuple(_padded_size(*a) for a in zip(size, out, ksize, stride, pad, dilate))
    xp = backend.get_array_module(col)
    img = xp.zeros(lead + padded + trail, col.dtype)
    head = (slice(None),) * first_axis
    for tap in itertools.product(*[range(k) for k in ksize]):
        dst = head + tuple(slice(i * d, i * d + (o - 1) * s + 1, s)
                           for i, d, o, s in zip(tap, dilate, out, stride))
        img[dst] += col[head + tap]
    return img[_interior(first_axis, size, pad)]


def _interior(first_axis, size, pad):
    # The index of the unpadded image inside a padded one.
    return (slice(None),) * first_axis + tuple(slice(p, p + s) for s, p in zip(size, pad))


def im2col(x, kh, kw, sy, sx, ph, pw, cover_all=False, dy=1, dx=1):
    """The patches of ``x`` (n, c, h, w) as a read-only strided view.

    Returns:
        An array of shape ``(n, c, kh, kw, out_h, out_w)`` that shares memory with ``x`` (or
        with a contiguous, zero-padded where needed, copy of it): the patches are not copied.
    """
    return im2col_nd(x, (kh, kw), (sy, sx), (ph, pw), cover_all, (dy, dx))


def col2im(col, sy, sx, ph, pw, h, w, dy=1, dx=1):
    """Sums the patches ``col`` (n, c, kh, kw, out_h, out_w) back into an (n, c, h, w) image.

    The transpose of :func:`im2col`: each input element gets the sum of every patch entry
    that read it. One strided slice addition per kernel tap (kh * kw of them).
    """
    return col2im_nd(col, (sy, sx), (ph, pw), (h, w), (dy, dx))
