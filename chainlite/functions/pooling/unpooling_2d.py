"""Inverse of 2-d pooling: every input value spread over its window."""
from chainlite import function_node
from chainlite.functions.array import _im2col
from chainlite.functions.pooling import _pooling
from chainlite.utils import type_check


class Unpooling2D(function_node.FunctionNode):

    def __init__(self, ksize, stride=None, pad=0, outsize=None, cover_all=True):
        label = self.label
        self.ksize = _pooling.as_tuple(ksize, 2, 'ksize', label)
        self.stride = self.ksize if stride is None else _pooling.as_tuple(
            stride, 2, 'stride', label)
        self.pad = _pooling.as_tuple(pad, 2, 'pad', label)
        _pooling.check_args(self.ksize, self.stride, self.pad, label)
        self.outsize = None if outsize is None else _pooling.as_tuple(
            outsize, 2, 'outsize', label)
        self.cover_all = cover_all

    def check_type_forward(self, in_types):
        type_check._argname(in_types, ('x',))
        x, = in_types
        type_check.expect(x.dtype.kind == 'f', x.ndim == 4)
        for i, (k, s, p) in enumerate(zip(self.ksize, self.stride, self.pad)):
            if self.outsize is None:
                # The output may be empty (as in Chainer), not negative:
                # s * (d - 1) + k (- s + 1) - 2 * p >= 0.
                extra = k - s - 2 * p + (1 - s if self.cover_all else 0)
                type_check.expect(x.shape[2 + i] * s + extra >= 0)
            else:
                expected = _im2col.get_conv_outsize(self.outsize[i], k, s, p, self.cover_all)
                type_check.expect(x.shape[2 + i] == expected)

    def forward(self, inputs):
        x, = inputs
        if self.outsize is None:
            self.outsize = tuple(
                _pooling.get_deconv_outsize(d, k, s, p, self.cover_all)
                for d, k, s, p in zip(x.shape[2:], self.ksize, self.stride, self.pad))
        self._windows = _pooling.Windows(self.outsize, self.ksize, self.stride, self.pad,
                                         x.shape[2:])
        return _pooling.spread(x, self._windows),

    def backward(self, indexes, grad_outputs):
        return _Unpooling2DGrad(self).apply(grad_outputs)


class _Unpooling2DGrad(function_node.FunctionNode):
    # Sums gy over each window; its own gradient is the unpooling again.

    def __init__(self, unpooling):
        self.unpooling = unpooling

    def forward(self, inputs):
        gy, = inputs
        return _pooling.window_sum(gy, self.unpooling._windows),

    def backward(self, indexes, grad_outputs):
        f = self.unpooling
        return Unpooling2D(f.ksize, f.stride, f.pad, f.outsize, f.cover_all).apply(
            grad_outputs)


def unpooling_2d(x, ksize, stride=None, pad=0, outsize=None, cover_all=True):
    """Inverse of pooling: copies every input pixel over its ``kh x kw`` output window.

    Output pixel windows are laid out as pooling with the same arguments would read them
    (starting at ``-pad``, moving by ``stride``); where windows overlap the copies add up.

    Args:
        x: A float Variable or array of shape ``(n, c, h, w)``.
        ksize: Window size: an int or a pair ``(kh, kw)``.
        stride: Stride: an int, a pair ``(sy, sx)``, or None (the window size).
        pad: Padding on each side: an int or a pair ``(ph, pw)``.
        outsize: The output size ``(out_h, out_w)``, or None for
            ``sy * (h - 1) + kh - 2 * ph`` (minus ``sy - 1`` with ``cover_all``), and
            likewise the width. Pooling the output with the same arguments must give back
            ``(h, w)`` windows.
        cover_all: Whether those windows are counted as :func:`max_pooling_2d` counts them
            with ``cover_all``.

    Returns:
        A Variable of shape ``(n, c, out_h, out_w)``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.array([[[[1., 2.],
        ...                 [3., 4.]]]])
        >>> F.unpooling_2d(x, 2, cover_all=False).array
        array([[[[1., 1., 2., 2.],
                 [1., 1., 2., 2.],
                 [3., 3., 4., 4.],
                 [3., 3., 4., 4.]]]])
    """
    return Unpooling2D(ksize, stride, pad, outsize, cover_all).apply((x,))[0]
