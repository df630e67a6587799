"""N-d pooling windows as strided views, shared by the pooling functions.

Arrays are ``(n, c, d_1, ..., d_N)``. A :class:`Windows` object knows, for one input spatial
shape, the window size ``k``, stride ``s`` and padding ``p`` per axis, the output shape, and how
much padding the windows need. Small windows are handled with one strided view of the padded
input per window offset (``prod(k)`` whole-array operations, never a loop over pixels); large
windows with one ``sliding_window_view`` and a reduction over its window axes. Window offsets
are numbered in C order (``offset = i * kw + j`` in 2-d), as Chainer numbers its indexes.
"""
from __future__ import annotations

import collections.abc
import itertools
import math
from typing import Any

from chainlite import backend
from chainlite.functions.array import _im2col

# Above this many offsets per window, disjoint windows are cheaper to reduce as one
# (..., prod(k)) window matrix than with one array-wide pass per offset. Overlapping windows
# always take the passes: their matrix would repeat every input element many times.
_MAX_OFFSETS_LOOPED = 48


def as_tuple(value, ndim, name, label):
    """``value`` (an int or a sequence of ``ndim`` ints) as a tuple of ``ndim`` ints."""
    if isinstance(value, (tuple, list)):
        if len(value) != ndim:
            raise ValueError('%s: %s must be an int or a sequence of %d ints, got %r'
                             % (label, name, ndim, value))
        return tuple(int(v) for v in value)
    return (int(value),) * ndim


def pair(x):
    """``x`` itself if it is iterable, else ``(x, x)`` (Chainer's ``_pair`` of 2-d pooling)."""
    if isinstance(x, collections.abc.Iterable):
        return x
    return x, x


def check_args(ksize, stride, pad, label):
    if min(ksize + stride) < 1 or min(pad) < 0:
        raise ValueError('%s: ksize and stride must be positive and pad non-negative, got '
                         'ksize=%s stride=%s pad=%s' % (label, ksize, stride, pad))


def get_deconv_outsize(size, k, s, p, cover_all=False):
    """The input length that pooling with these parameters maps to ``size`` positions."""
    if cover_all:
        return s * (size - 1) + k - s + 1 - 2 * p
    return s * (size - 1) + k - 2 * p


class Windows:
    """Window geometry for one input spatial shape.

    Attributes:
        in_shape: Spatial shape of the (unpadded) input.
        ksize, stride, pad: Tuples, one entry per spatial axis.
        out_shape: Number of window positions per axis.
        padded_shape: Spatial shape of the padded input the windows read (the far side gets
            the extra padding that ``cover_all`` windows run into).
    """

    def __init__(self, in_shape, ksize, stride, pad, out_shape):
        self.in_shape = tuple(in_shape)
        self.ksize = ksize
        self.stride = stride
        self.pad = pad
        self.out_shape = tuple(out_shape)
        self.padded_shape = tuple(
            max(p + d, (o - 1) * s + k)
            for d, k, s, p, o in zip(in_shape, ksize, stride, pad, out_shape))
        self.size = math.prod(ksize)
        self.overlap = any(s < k for k, s in zip(ksize, stride))
        self.looped = self.overlap or self.size <= _MAX_OFFSETS_LOOPED

    @classmethod
    def pooling(cls, in_shape, ksize, stride, pad, cover_all):
        """Windows of a pooling over an input of spatial shape ``in_shape``."""
        out = [_im2col.get_conv_outsize(d, k, s, p, cover_all)
               for d, k, s, p in zip(in_shape, ksize, stride, pad)]
        return cls(in_shape, ksize, stride, pad, out)

    def _needs_padding(self):
        return any(p for p in self.pad) or self.padded_shape != self.in_shape

    def padded(self, x, value):
        """``x`` inside an array of the padded shape filled with ``value`` (no copy if none)."""
        if not self._needs_padding():
            return x
        xp = backend.get_array_module(x)
        out = xp.full(x.shape[:2] + self.padded_shape, value, x.dtype)
        out[self._inner()] = x
        return out

    def crop(self, a):
        """The input region of an array of the padded shape (a view)."""
        if not self._needs_padding():
            return a
        return a[self._inner()]

    def _inner(self):
        return (slice(None), slice(None)) + tuple(
            slice(p, p + d) for p, d in zip(self.pad, self.in_shape))

    def offsets(self):
        """One index per window offset, in C order: ``a[index]`` is the ``(n, c, *out)``
        array of the elements at that offset of every window (a strided view)."""
        ranges = [range(k) for k in self.ksize]
        for offset in itertools.product(*ranges):
            yield (slice(None), slice(None)) + tuple(
                slice(i, i + (o - 1) * s + 1, s)
                for i, o, s in zip(offset, self.out_shape, self.stride))

    def matrix(self, padded):
        """The windows of a padded array as ``(n, c, *out, prod(k))`` (a copy)."""
        xp = backend.get_array_module(padded)
        nd = len(self.ksize)
        axes = tuple(range(2, 2 + nd))
        w = xp.lib.stride_tricks.sliding_window_view(padded, self.ksize, axis=axes)
        w = w[(slice(None), slice(None)) + tuple(
            slice(0, (o - 1) * s + 1, s) for o, s in zip(self.out_shape, self.stride))]
        return w.reshape(w.shape[:2 + nd] + (self.size,))

    def _tiled(self, col):
        # (n, c, *out, prod(k)) -> the padded array, for windows that tile it (stride == k).
        nd = len(self.ksize)
        n, c = col.shape[:2]
        col = col.reshape((n, c) + self.out_shape + self.ksize)
        order = [0, 1] + [a for d in range(nd) for a in (2 + d, 2 + nd + d)]
        tiled = col.transpose(order).reshape(
            (n, c) + tuple(o * k for o, k in zip(self.out_shape, self.ksize)))
        if tiled.shape[2:] == self.padded_shape:
            return tiled
        xp = backend.get_array_module(col)
        out = xp.zeros((n, c) + self.padded_shape, col.dtype)
        out[(slice(None), slice(None)) + tuple(slice(0, t) for t in tiled.shape[2:])] = tiled
        return out

    def _tiles(self):
        return tuple(self.stride) == tuple(self.ksize)


def _zeros_like_layout(shape, dtype, ref):
    # Zeros of ``shape`` laid out batch-last, (c, d_1..d_N, n) in memory, when ``ref`` is
    # (the forward input's layout, which the gradient should share); C order otherwise.
    xp = backend.get_array_module(ref)
    nd = ref.ndim
    if nd > 2 and not ref.flags.c_contiguous and ref.transpose(
            tuple(range(1, nd)) + (0,)).flags.c_contiguous:
        buf = xp.zeros(shape[1:] + shape[:1], dtype)
        return buf.transpose((nd - 1,) + tuple(range(nd - 1)))
    return xp.zeros(shape, dtype)


def max_with_indexes(x, win):
    """The maximum of every window and its offset (the first one on ties).

    Returns:
        ``(y, indexes)``: ``y`` of shape ``(n, c, *out)`` and the offsets, an integer array
        of the same shape (as small an integer type as the window size allows).
    """
    xp = backend.get_array_module(x)
    padded = win.padded(x, -xp.inf)
    if not win.looped:
        col = win.matrix(padded)
        indexes = col.argmax(axis=-1)
        y = xp.take_along_axis(col, indexes[..., None], axis=-1)[..., 0]
        return y, indexes
    views = win.offsets()
    # The result keeps the input's memory layout (a convolution's output is batch-last), so
    # that the passes below, the activation gradient and the next convolution need no
    # transposing copies.
    y = padded[next(views)].copy(order='K')
    index_type = xp.min_scalar_type(-win.size).type  # int8 up to 128 offsets
    indexes = xp.zeros_like(y, dtype=index_type)
    for k, index in enumerate(views, 1):
        v = padded[index]
        # A later offset wins only if strictly greater: the first maximum keeps its index.
        better = xp.greater(v, y)
        xp.maximum(y, v, out=y)
        # The last offset that raised the running maximum is the argmax (branch-free update).
        xp.maximum(indexes, better * index_type(k), out=indexes)
    return y, indexes


def gather(x, indexes, win):
    """``x``'s element at offset ``indexes`` of every window: ``(n, c, *out)``."""
    xp = backend.get_array_module(x)
    padded = win.padded(x, 0)
    if not win.looped:
        col = win.matrix(padded)
        return xp.take_along_axis(col, indexes[..., None].astype(xp.intp, copy=False),
                                  axis=-1)[..., 0]
    y = xp.zeros(indexes.shape, x.dtype)
    for k, index in enumerate(win.offsets()):
        y += padded[index] * (indexes == k)
    return y


def scatter(g, indexes, win):
    """Places ``g`` (``(n, c, *out)``) at offset ``indexes`` of every window of a zero input
    (sums where windows overlap): the transpose of :func:`gather`."""
    xp = backend.get_array_module(g)
    n, c = g.shape[:2]
    if not win.looped and win._tiles():
        col = xp.zeros(g.shape + (win.size,), g.dtype)
        xp.put_along_axis(col, indexes[..., None].astype(xp.intp, copy=False), g[..., None],
                          axis=-1)
        return win.crop(win._tiled(col))
    out = _zeros_like_layout((n, c) + win.padded_shape, g.dtype, indexes)
    for k, index in enumerate(win.offsets()):
        if win.overlap:
            out[index] += g * (indexes == k)
        else:
            # Windows are disjoint: each element is written once, by plain assignment.
            xp.multiply(g, indexes == k, out=out[index])
    return win.crop(out)


def window_sum(x, win):
    """Sum over every window of ``x`` padded with zeros: ``(n, c, *out)``."""
    padded = win.padded(x, 0)
    if not win.looped:
        return win.matrix(padded).sum(axis=-1)
    views = win.offsets()
    y = padded[next(views)].copy()
    for index in views:
        y += padded[index]
    return y


def spread(g, win):
    """Adds each ``g`` element (``(n, c, *out)``) to every input element of its window:
    the transpose of :func:`window_sum`."""
    xp = backend.get_array_module(g)
    n, c = g.shape[:2]
    nd = len(win.ksize)
    if not win.looped and win._tiles():
        col = xp.broadcast_to(g[(Ellipsis,) + (None,) * nd],
                              g.shape + win.ksize).reshape(g.shape + (win.size,))
        return win.crop(win._tiled(col))
    out = xp.zeros((n, c) + win.padded_shape, g.dtype)
    for index in win.offsets():
        if win.overlap:
            out[index] += g
        else:
            out[index] = g
    return win.crop(out)


def valid_counts(win, dtype, xp):
    """Number of non-padding input elements in every window, shaped ``(*out)``."""
    counts: Any = None
    nd = len(win.ksize)
    for axis, (d, k, s, p, o) in enumerate(zip(win.in_shape, win.ksize, win.stride, win.pad,
                                                win.out_shape)):
        start = xp.arange(o) * s - p
        c = xp.minimum(start + k, d) - xp.maximum(start, 0)
        shape = [1] * nd
        shape[axis] = o
        c = c.reshape(shape)
        counts = c if counts is None else counts * c
    return counts.astype(dtype)
