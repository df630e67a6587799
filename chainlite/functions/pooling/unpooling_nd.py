"""Inverse of N-d pooling: every input value spread over its window (1-d, 3-d, N-d)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions.array import _im2col
from chainlite.functions.pooling import _pooling
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import ShapeSpec, VariableOrArray
    from chainlite.variable import Variable


class UnpoolingND(function_node.FunctionNode):

    def __init__(self, ndim: int, ksize: ShapeSpec, stride: ShapeSpec | None = None,
                 pad: ShapeSpec = 0, outsize: ShapeSpec | None = None,
                 cover_all: bool = True) -> None:
        label = self.label
        self.ndim = ndim
        self.ksize = _pooling.as_tuple(ksize, ndim, 'ksize', label)
        self.stride = self.ksize if stride is None else _pooling.as_tuple(
            stride, ndim, 'stride', label)
        self.pad = _pooling.as_tuple(pad, ndim, 'pad', label)
        _pooling.check_args(self.ksize, self.stride, self.pad, label)
        self.outsize = None if outsize is None else _pooling.as_tuple(
            outsize, ndim, 'outsize', label)
        self.cover_all = cover_all

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x, = in_types
        type_check.expect(x.dtype.kind == 'f', x.ndim == 2 + self.ndim)
        for i, (k, s, p) in enumerate(zip(self.ksize, self.stride, self.pad)):
            if self.outsize is None:
                # The output may be empty along an axis (as in Chainer), not negative.
                extra = k - s - 2 * p + (1 - s if self.cover_all else 0)
                type_check.expect(x.shape[2 + i] * s + extra >= 0)
            else:
                expected = _im2col.get_conv_outsize(self.outsize[i], k, s, p, self.cover_all)
                type_check.expect(x.shape[2 + i] == expected)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        if self.outsize is None:
            self.outsize = tuple(
                _pooling.get_deconv_outsize(d, k, s, p, self.cover_all)
                for d, k, s, p in zip(x.shape[2:], self.ksize, self.stride, self.pad))
        self._windows = _pooling.Windows(self.outsize, self.ksize, self.stride, self.pad,
                                         x.shape[2:])
        return _pooling.spread(x, self._windows),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return _UnpoolingNDGrad(self).apply(grad_outputs)


class _UnpoolingNDGrad(function_node.FunctionNode):
    # Sums gy over each window; its own gradient is the unpooling again.

    def __init__(self, unpooling):
        self.unpooling = unpooling

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        gy, = inputs
        return _pooling.window_sum(gy, self.unpooling._windows),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        f = self.unpooling
        return UnpoolingND(f.ndim, f.ksize, f.stride, f.pad, f.outsize, f.cover_all).apply(
            grad_outputs)


class UnpoolingNDGrad(_UnpoolingNDGrad):
    """The input gradient of unpooling as Chainer's node, ``UnpoolingNDGrad(f)``.

    Applied to ``(gy,)`` after the forward node ``f`` has run, it sums ``gy`` over each
    window; differentiable again (its gradient is the unpooling).

    Args:
        unpoolingnd: The :class:`UnpoolingND` node whose forward has run.
    """


def unpooling_nd(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = None,
                 pad: ShapeSpec = 0, outsize: ShapeSpec | None = None,
                 cover_all: bool = True) -> Variable:
    """N-dimensional inverse of pooling: copies every input element over its output window.

    The number of spatial axes N is ``x.ndim - 2``. Output windows are laid out as pooling
    with the same arguments would read them (starting at ``-pad``, moving by ``stride``);
    where windows overlap the copies add up.

    Args:
        x: A float Variable or array of shape ``(n, c, d_1, ..., d_N)``.
        ksize: Window size: an int or a tuple of N ints.
        stride: Stride: an int, a tuple of N ints, or None (the window size).
        pad: Padding on each side: an int or a tuple of N ints.
        outsize: The output size ``(out_1, ..., out_N)``, or None for
            ``s * (d - 1) + k - 2 * p`` along each axis (minus ``s - 1`` with ``cover_all``).
            Pooling the output with the same arguments must give back ``(d_1, ..., d_N)``
            windows.
        cover_all: Whether those windows are counted as :func:`max_pooling_nd` counts them
            with ``cover_all``.

    Returns:
        A Variable of shape ``(n, c, out_1, ..., out_N)``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.array([[[1., 2., 3.]]])
        >>> F.unpooling_nd(x, 2, cover_all=False).array
        array([[[1., 1., 2., 2., 3., 3.]]])
    """
    ndim = max(len(x.shape) - 2, 1)
    return UnpoolingND(ndim, ksize, stride, pad, outsize, cover_all).apply((x,))[0]


def _check_ndim(name, x, ndim):
    got = len(x.shape) - 2
    if got != ndim:
        raise ValueError(
            '{}: the input x must have {} spatial axes after (batch, channel), i.e. {} '
            'dimensions; got x of shape {} ({} dimensions)'.format(
                name, ndim, ndim + 2, tuple(x.shape), len(x.shape)))


def unpooling_1d(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = None,
                 pad: ShapeSpec = 0, outsize: ShapeSpec | None = None,
                 cover_all: bool = True) -> Variable:
    """1-dimensional inverse of pooling: :func:`unpooling_nd` on ``(n, c, w)`` inputs.

    Args:
        x: A float Variable or array of shape ``(n, c, w)``.
        ksize: Window size: an int or a 1-tuple.
        stride: Stride: an int, a 1-tuple, or None (the window size).
        pad: Padding on each side: an int or a 1-tuple.
        outsize: The output width as a 1-tuple, or None (see :func:`unpooling_nd`).
        cover_all: As in :func:`unpooling_nd`.

    Returns:
        A Variable of shape ``(n, c, out_w)``.

    Raises:
        ValueError: If ``x`` does not have 3 dimensions.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.unpooling_1d(np.array([[[1., 2.]]]), 3, cover_all=False).shape
        (1, 1, 6)
    """
    _check_ndim('unpooling_1d', x, 1)
    return unpooling_nd(x, ksize, stride, pad, outsize, cover_all)


def unpooling_3d(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = None,
                 pad: ShapeSpec = 0, outsize: ShapeSpec | None = None,
                 cover_all: bool = True) -> Variable:
    """3-dimensional inverse of pooling: :func:`unpooling_nd` on ``(n, c, d, h, w)`` inputs.

    Args:
        x: A float Variable or array of shape ``(n, c, d, h, w)``.
        ksize: Window size: an int or a triple.
        stride: Stride: an int, a triple, or None (the window size).
        pad: Padding on each side: an int or a triple.
        outsize: The output size ``(out_d, out_h, out_w)``, or None (see
            :func:`unpooling_nd`).
        cover_all: As in :func:`unpooling_nd`.

    Returns:
        A Variable of shape ``(n, c, out_d, out_h, out_w)``.

    Raises:
        ValueError: If ``x`` does not have 5 dimensions.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.unpooling_3d(np.ones((1, 1, 1, 2, 2)), 2, cover_all=False).shape
        (1, 1, 2, 4, 4)
    """
    _check_ndim('unpooling_3d', x, 3)
    return unpooling_nd(x, ksize, stride, pad, outsize, cover_all)
