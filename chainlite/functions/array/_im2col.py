"""Patches of images as strided views (im2col) and their sum back into images (col2im).

Shared by F.im2col and the convolutions. ``col`` arrays have the shape
``(n, c, kh, kw, out_h, out_w)``: ``col[:, :, i, j, y, x]`` is the padded input at row
``y * sy + i * dy - ph`` and column ``x * sx + j * dx - pw``.
"""
from chainlite import backend


def pair(v):
    """``v`` as a pair of ints: an int is used for both axes."""
    if isinstance(v, (tuple, list)):
        if len(v) != 2:
            raise ValueError('expected an int or a pair of ints, got %r' % (v,))
        return int(v[0]), int(v[1])
    return int(v), int(v)


def get_conv_outsize(size, k, s, p, cover_all=False, d=1):
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


def _padded_size(size, out, k, s, p, d):
    # The far side gets the extra padding that cover_all windows run into.
    return max(size + 2 * p, (out - 1) * s + (k - 1) * d + 1)


def im2col(x, kh, kw, sy, sx, ph, pw, cover_all=False, dy=1, dx=1):
    """The patches of ``x`` (n, c, h, w) as a read-only strided view.

    Returns:
        An array of shape ``(n, c, kh, kw, out_h, out_w)`` that shares memory with ``x`` (or
        with a zero-padded copy of it when padding is needed): nothing is copied.
    """
    n, c, h, w = x.shape
    out_h = get_conv_outsize(h, kh, sy, ph, cover_all, dy)
    out_w = get_conv_outsize(w, kw, sx, pw, cover_all, dx)
    hp = _padded_size(h, out_h, kh, sy, ph, dy)
    wp = _padded_size(w, out_w, kw, sx, pw, dx)
    xp = backend.get_array_module(x)
    if (hp, wp) != (h, w):
        padded = xp.zeros((n, c, hp, wp), x.dtype)
        padded[:, :, ph:ph + h, pw:pw + w] = x
        x = padded
    # Every dilated window at every position, then the strided positions and dilated taps.
    windows = xp.lib.stride_tricks.sliding_window_view(
        x, ((kh - 1) * dy + 1, (kw - 1) * dx + 1), axis=(2, 3))
    windows = windows[:, :, :(out_h - 1) * sy + 1:sy, :(out_w - 1) * sx + 1:sx, ::dy, ::dx]
    return windows.transpose(0, 1, 4, 5, 2, 3)


def col2im(col, sy, sx, ph, pw, h, w, dy=1, dx=1):
    """Sums the patches ``col`` (n, c, kh, kw, out_h, out_w) back into an (n, c, h, w) image.

    The transpose of :func:`im2col`: each input element gets the sum of every patch entry
    that read it. One strided slice addition per kernel tap (kh * kw of them).
    """
    n, c, kh, kw, out_h, out_w = col.shape
    hp = _padded_size(h, out_h, kh, sy, ph, dy)
    wp = _padded_size(w, out_w, kw, sx, pw, dx)
    xp = backend.get_array_module(col)
    img = xp.zeros((n, c, hp, wp), col.dtype)
    y_span = (out_h - 1) * sy + 1
    x_span = (out_w - 1) * sx + 1
    for i in range(kh):
        for j in range(kw):
            y0, x0 = i * dy, j * dx
            img[:, :, y0:y0 + y_span:sy, x0:x0 + x_span:sx] += col[:, :, i, j]
    return img[:, :, ph:ph + h, pw:pw + w]
