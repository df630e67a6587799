"""Locally connected 2-D layer: a convolution whose filters differ at each output position."""
from chainlite import variable
from chainlite.functions.array import cast
from chainlite.functions.array import get_item
from chainlite.functions.array import im2col
from chainlite.functions.array import reshape
from chainlite.functions.math import einsum
from chainlite.utils import type_check


def _pair(x):
    return tuple(x) if hasattr(x, '__getitem__') else (x, x)


def _check_types(x, W, b):
    arrays = (x, W) if b is None else (x, W, b)
    in_types = type_check.get_types(arrays, 'in_types', False)
    type_check.argname(in_types, ('x', 'W', 'b')[:len(arrays)])
    x_type, w_type = in_types[:2]
    try:
        type_check.expect(x_type.dtype.kind == 'f', w_type.dtype.kind == 'f',
                          x_type.ndim == 4, w_type.ndim == 6,
                          x_type.shape[1] == w_type.shape[3])
        if b is not None:
            b_type = in_types[2]
            type_check.expect(b_type.dtype == x_type.dtype, b_type.ndim == 3,
                              b_type.shape == w_type.shape[:3])
    except type_check.InvalidType as e:
        raise type_check.InvalidType(
            e.expect, e.actual, 'Invalid operation is performed in: local_convolution_2d '
            '(Forward)\n\n' + e.msg) from None


def local_convolution_2d(x, W, b=None, stride=1):
    """Two-dimensional locally connected layer: a convolution without weight sharing.

    As :func:`~chainlite.functions.convolution_2d` (no padding), but output position
    ``(i, j)`` has its own filters ``W[:, i, j]``:
    ``y[n, o, i, j] = sum_{c, p, q} W[o, i, j, c, p, q] * x[n, c, i * sy + p, j * sx + q]
    + b[o, i, j]``. ``(h_O, w_O)`` is taken from ``W``; when the input has room for more
    positions, those further down and right are not computed (as in Chainer).

    Args:
        x: A float Variable or array of shape ``(n, c_I, h, w)``.
        W: The filters, of shape ``(c_O, h_O, w_O, c_I, k_H, k_W)`` (a float dtype; cast to
            ``x``'s, its gradient back to its own).
        b: None, or the biases, of shape ``(c_O, h_O, w_O)`` and ``x``'s dtype.
        stride: An int or a pair ``(sy, sx)``.

    Returns:
        A Variable of shape ``(n, c_O, h_O, w_O)`` and ``x``'s dtype.

    Raises:
        chainlite.utils.type_check.InvalidType: For inputs of the wrong ndim, dtype or
            shape.
        ValueError: If ``x`` is too small for ``h_O x w_O`` positions.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
        >>> W = np.zeros((1, 2, 2, 1, 2, 2))
        >>> W[0, 0, 0, 0, 0, 0] = 1.0   # position (0, 0) reads its upper-left tap
        >>> W[0, 1, 1, 0, 1, 1] = 1.0   # position (1, 1) reads its lower-right tap
        >>> F.local_convolution_2d(x, W, stride=2).array
        array([[[[ 0.,  0.],
                 [ 0., 15.]]]])
    """
    _check_types(variable.as_array(x), variable.as_array(W), variable.as_array(b))
    c_out, out_h, out_w, c_in, kh, kw = W.shape
    sy, sx = _pair(stride)
    h, w = x.shape[2:]
    if (h - kh) // sy + 1 < out_h or (w - kw) // sx + 1 < out_w or h < kh or w < kw:
        raise ValueError('local_convolution_2d: an input of size %dx%d has room for fewer '
                         'than %dx%d positions of a %dx%d filter with stride %s (W.shape '
                         '%s)' % (h, w, out_h, out_w, kh, kw, (sy, sx), W.shape))
    if W.dtype != x.dtype:
        W = cast.cast(W, x.dtype)
    cols = im2col.im2col(x, (kh, kw), (sy, sx))
    if cols.shape[2:] != (out_h, out_w):
        cols = get_item.get_item(cols, (Ellipsis, slice(out_h), slice(out_w)))
    Wf = reshape.reshape(W, (c_out, out_h, out_w, c_in * kh * kw))
    y = einsum.einsum('nfij,oijf->noij', cols, Wf)
    if b is not None:
        y = y + reshape.reshape(b, (1, c_out, out_h, out_w))
    return y
