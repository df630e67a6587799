"""Deformable convolution: a convolution whose taps are moved by learned offsets."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from chainlite import backend
from chainlite.functions.array import concat
from chainlite.functions.array import get_item
from chainlite.functions.array import pad as pad_mod
from chainlite.functions.array import reshape
from chainlite.functions.array import spatial_transformer_sampler
from chainlite.functions.array import transpose
from chainlite.functions.math import matmul

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _pair(x):
    return tuple(x) if hasattr(x, '__getitem__') else (x, x)


def _offset_to_grid(offset, kh, kw, sy, sx, h_pad, w_pad):
    # Where each tap of each output position reads, in the sampler's [-1, 1] coordinates of
    # the padded input: the regular convolution grid plus the offsets.
    n, _, out_h, out_w = offset.shape
    k = kh * kw
    dtype = offset.dtype
    xp = backend.get_array_module(offset)
    ys, xs = xp.meshgrid(xp.arange(out_h, dtype=dtype) * sy,
                         xp.arange(out_w, dtype=dtype) * sx, indexing='ij')
    tap_x = xp.tile(xp.arange(kw, dtype=dtype), kh)[:, None, None]
    tap_y = xp.repeat(xp.arange(kh, dtype=dtype), kw)[:, None, None]
    x = get_item.get_item(offset, (slice(None), slice(0, k))) + (xs + tap_x)[None]
    y = get_item.get_item(offset, (slice(None), slice(k, 2 * k))) + (ys + tap_y)[None]
    x = x * dtype.type(2. / (w_pad - 1)) - dtype.type(1)
    y = y * dtype.type(2. / (h_pad - 1)) - dtype.type(1)
    return concat.concat((x, y), axis=1)


def _offset2grid(offset: VariableOrArray, kh: int, kw: int, sy: int, sx: int, ph: int, pw: int,
                 h: int, w: int) -> Variable:
    # Chainer's signature: the sampling grid of an input of h x w padded by (ph, pw).
    return _offset_to_grid(offset, kh, kw, sy, sx, h + 2 * ph, w + 2 * pw)


def deformable_convolution_2d_sampler(x: VariableOrArray, offset: VariableOrArray,
                                      W: VariableOrArray, b: VariableOrArray | None = None,
                                      stride: int | Sequence[int] = 1,
                                      pad: int | Sequence[int] = 0) -> Variable:
    """Two-dimensional deformable convolution with given offsets (Dai et al., 2017,
    https://arxiv.org/abs/1703.06211).

    As :func:`~chainlite.functions.convolution_2d`, but tap ``(p, q)`` of the filter at
    output position ``(i, j)`` reads the zero-padded input at
    ``(i * sy + p + offset_y, j * sx + q + offset_x)``, interpolated bilinearly
    (:func:`~chainlite.functions.spatial_transformer_sampler`), so gradients reach the
    offsets too. The output size is ``h_O = (h + 2 p_H - k_H) // s_Y + 1`` and likewise
    ``w_O``, which ``offset`` must have.

    Args:
        x: A float Variable or array of shape ``(n, c_I, h, w)``.
        offset: A Variable or array of shape ``(n, 2 * k_H * k_W, h_O, w_O)`` and ``x``'s
            dtype: the first ``k_H * k_W`` channels are the horizontal offsets of the taps
            (row-major over the filter), the others the vertical ones.
        W: The filters, of shape ``(c_O, c_I, k_H, k_W)``.
        b: None, or the biases, of length ``c_O``.
        stride: An int or a pair ``(s_Y, s_X)``.
        pad: An int or a pair ``(p_H, p_W)``: zero padding on each side.

    Returns:
        A Variable of shape ``(n, c_O, h_O, w_O)``.

    Raises:
        ValueError: If ``offset`` does not have ``2 * k_H * k_W`` channels.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> x = np.random.default_rng(0).uniform(size=(1, 2, 4, 4))
        >>> W = np.random.default_rng(1).uniform(size=(3, 2, 3, 3))
        >>> offset = np.zeros((1, 18, 2, 2))   # no offsets: a plain convolution
        >>> y = F.deformable_convolution_2d_sampler(x, offset, W)
        >>> np.allclose(y.array, F.convolution_2d(x, W).array)
        True
    """
    sy, sx = _pair(stride)
    ph, pw = _pair(pad)
    out_c, _, kh, kw = W.shape
    n, c, h, w = x.shape
    _, khkw2, out_h, out_w = offset.shape
    if khkw2 != 2 * kh * kw:
        raise ValueError('deformable_convolution_2d_sampler: offset must have 2 * kh * kw = '
                         '%d channels for %dx%d filters, got offset.shape %s'
                         % (2 * kh * kw, kh, kw, offset.shape))
    grid = _offset_to_grid(offset, kh, kw, sy, sx, h + 2 * ph, w + 2 * pw)
    grid = reshape.reshape(grid, (n, 2, kh * kw, out_h * out_w))
    x_pad = pad_mod.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), 'constant')
    # (n, c, k, P): every tap of every position, sampled in one call.
    taps = spatial_transformer_sampler.spatial_transformer_sampler(x_pad, grid)
    taps = reshape.reshape(transpose.transpose(taps, (0, 3, 1, 2)),
                           (n * out_h * out_w, c * kh * kw))
    Wm = reshape.reshape(W, (out_c, c * kh * kw))
    y = matmul.matmul(taps, Wm, transb=True)
    y = transpose.transpose(reshape.reshape(y, (n, out_h, out_w, out_c)), (0, 3, 1, 2))
    if b is not None:
        y = y + reshape.reshape(b, (1, out_c, 1, 1))
    return y
