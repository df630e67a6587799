"""Upsampling with the indexes of a 2-d max pooling (the pooled values back in place)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import configuration
from chainlite import function_node
from chainlite import variable
from chainlite.functions.array import _im2col
from chainlite.functions.pooling import _pooling
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import ShapeSpec, VariableOrArray
    from chainlite.variable import Variable


def _indexes_for(indexes: Any, x: Any) -> Any:
    # Host indexes given with a GPU input are sent to its GPU (as Chainer's xp.asarray; the
    # forward runs with that GPU current).
    if x.__class__ is numpy.ndarray or not isinstance(indexes, numpy.ndarray):
        return indexes
    return backend.get_array_module(x).asarray(indexes)


class Upsampling2D(function_node.FunctionNode):

    def __init__(self, indexes: numpy.ndarray, ksize: ShapeSpec, stride: ShapeSpec | None = None,
                 pad: ShapeSpec = 0, outsize: ShapeSpec | None = None,
                 cover_all: bool = True) -> None:
        label = self.label
        self.indexes = indexes
        self.ksize = _pooling.as_tuple(ksize, 2, 'ksize', label)
        self.stride = self.ksize if stride is None else _pooling.as_tuple(
            stride, 2, 'stride', label)
        self.pad = _pooling.as_tuple(pad, 2, 'pad', label)
        _pooling.check_args(self.ksize, self.stride, self.pad, label)
        self.outsize = None if outsize is None else _pooling.as_tuple(
            outsize, 2, 'outsize', label)
        self.cover_all = cover_all

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x, = in_types
        type_check.expect(x.dtype.kind == 'f', x.ndim == 4,
                          x.shape == self.indexes.shape)
        for i, (k, s, p) in enumerate(zip(self.ksize, self.stride, self.pad)):
            if self.outsize is None:
                extra = k - s - 2 * p + (1 - s if self.cover_all else 0)
                type_check.expect(x.shape[2 + i] * s + extra > 0)
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
        return _pooling.scatter(x, _indexes_for(self.indexes, x), self._windows),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return _Upsampling2DGrad(self).apply(grad_outputs)


class _Upsampling2DGrad(function_node.FunctionNode):
    # Picks gy at each window's index; its own gradient is the upsampling again.

    def __init__(self, upsampling):
        self.upsampling = upsampling

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        gy, = inputs
        f = self.upsampling
        return _pooling.gather(gy, _indexes_for(f.indexes, gy), f._windows),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        f = self.upsampling
        return Upsampling2D(f.indexes, f.ksize, f.stride, f.pad, f.outsize,
                            f.cover_all).apply(grad_outputs)


class Upsampling2DGrad(_Upsampling2DGrad):
    """The input gradient of upsampling as Chainer's node, ``Upsampling2DGrad(f)``.

    Applied to ``(gy,)`` after the forward node ``f`` has run, it picks ``gy`` at each
    window's index; differentiable again (its gradient is the upsampling).

    Args:
        upsampling2d: The :class:`Upsampling2D` node whose forward has run.
    """


def upsampling_2d(x: VariableOrArray, indexes: numpy.ndarray, ksize: ShapeSpec,
                  stride: ShapeSpec | None = None, pad: ShapeSpec = 0,
                  outsize: ShapeSpec | None = None, cover_all: bool = True) -> Variable:
    """Upsampling with pooling indexes: each value goes back where its window's maximum was.

    The inverse of :func:`max_pooling_2d` with ``return_indices=True`` and the same window
    arguments: every other output pixel is 0 (values add up where windows overlap).

    Args:
        x: A float Variable or array of shape ``(n, c, h, w)``, e.g. pooled values.
        indexes: An integer array of the same shape: the offset ``i * kw + j`` inside each
            window (as :func:`max_pooling_2d` returns them).
        ksize: Window size: an int or a pair ``(kh, kw)``.
        stride: Stride: an int, a pair ``(sy, sx)``, or None (the window size).
        pad: Padding on each side: an int or a pair ``(ph, pw)``.
        outsize: The output size ``(out_h, out_w)`` (usually the pooled input's), or None for
            ``sy * (h - 1) + kh - 2 * ph`` (minus ``sy - 1`` with ``cover_all``), and likewise
            the width. Pooling the output with the same arguments must give ``(h, w)``.
        cover_all: Whether those windows are counted as :func:`max_pooling_2d` counts them
            with ``cover_all``.

    Returns:
        A Variable of shape ``(n, c, out_h, out_w)``. Only ``x`` gets a gradient.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.array([[[[1., 5., 2., 0.],
        ...                 [3., 4., 8., 6.]]]])
        >>> y, indexes = F.max_pooling_2d(x, 2, return_indices=True)
        >>> F.upsampling_2d(y, indexes, 2, outsize=(2, 4)).array
        array([[[[0., 5., 0., 0.],
                 [0., 0., 8., 0.]]]])
    """
    indexes = variable.as_array(indexes)
    if isinstance(indexes, (list, tuple)):
        indexes = backend.get_array_module(x).asarray(indexes)  # on x's device
    node = Upsampling2D(indexes, ksize, stride, pad, outsize, cover_all)
    if indexes.dtype.kind not in 'iu':
        raise type_check.InvalidType(
            'indexes.dtype.kind in (i, u)', 'indexes.dtype.kind == %s' % indexes.dtype.kind,
            msg='Invalid operation is performed in: Upsampling2D (Forward)\n\n'
                'Expect: indexes to be an integer array\nActual: %s' % indexes.dtype)
    # (GPU indexes are read on the host only in debug mode; Chainer never checks them.)
    checked = indexes.__class__ is numpy.ndarray or configuration.config.debug
    if checked and indexes.size and (
            indexes.min() < 0 or indexes.max() >= node.ksize[0] * node.ksize[1]):
        raise ValueError('Upsampling2D: indexes must lie in [0, kh * kw) = [0, %d), got values '
                         'in [%d, %d]' % (node.ksize[0] * node.ksize[1], indexes.min(),
                                          indexes.max()))
    return node.apply((x,))[0]
