"""N-dimensional spatial average pooling."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions.pooling import _pooling
from chainlite.functions.pooling import max_pooling_nd
from chainlite.utils import conv
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import ShapeSpec, VariableOrArray
    from chainlite.variable import Variable


class AveragePoolingND(function_node.FunctionNode):

    def __init__(self, ndim: int, ksize: ShapeSpec, stride: ShapeSpec | None = None,
                 pad: ShapeSpec = 0, pad_value: float | None = 0) -> None:
        label = self.label
        self.ndim = ndim
        self.ksize = _pooling.as_tuple(ksize, ndim, 'ksize', label)
        self.stride = self.ksize if stride is None else _pooling.as_tuple(
            stride, ndim, 'stride', label)
        self.pad = _pooling.as_tuple(pad, ndim, 'pad', label)
        _pooling.check_args(self.ksize, self.stride, self.pad, label)
        if pad_value is not None and not (isinstance(pad_value, (int, float))
                                          and pad_value == 0):
            raise ValueError('%s: pad_value must be 0 or None, got %r' % (label, pad_value))
        self.pad_value = pad_value

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x, = in_types
        type_check.expect(x.dtype.kind == 'f', x.ndim == 2 + self.ndim)
        for i, (k, p) in enumerate(zip(self.ksize, self.pad)):
            type_check.expect(x.shape[2 + i] + 2 * p >= k)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self._windows = _pooling.Windows.pooling(x.shape[2:], self.ksize, self.stride,
                                                 self.pad, False)
        return _pooling.window_sum(x, self._windows) / self._divisor(x),

    def _divisor(self, a):
        # The window size, or (pad_value=None) the number of input elements in each window.
        if self.pad_value is None and any(self.pad):
            return _pooling.valid_counts(self._windows, a.dtype, backend.get_array_module(a))
        return self._windows.size

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return _AveragePoolingNDGrad(self).apply(grad_outputs)


class _AveragePoolingNDGrad(function_node.FunctionNode):
    # Spreads gy / divisor over each window; its own gradient is the same average pooling.

    def __init__(self, pooling):
        self.pooling = pooling

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        gy, = inputs
        f = self.pooling
        return _pooling.spread(gy / f._divisor(gy), f._windows),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        f = self.pooling
        return AveragePoolingND(f.ndim, f.ksize, f.stride, f.pad, f.pad_value).apply(
            grad_outputs)


class AveragePoolingNDGrad(_AveragePoolingNDGrad):
    """The input gradient of average pooling as Chainer's node, ``AveragePoolingNDGrad(f)``.

    Applied to ``(gy,)`` after the forward node ``f`` has run, it spreads ``gy`` divided by
    the window size over each window; differentiable again (its gradient is the pooling).

    Args:
        apoolnd: The :class:`AveragePoolingND` node whose forward has run.
    """

    def __init__(self, apoolnd: AveragePoolingND) -> None:
        super().__init__(apoolnd)
        self.func = apoolnd


def _get_conv_slices(size: int, k: int, s: int, p: int, cover_all: bool = False, d: int = 1,
                     include_pad: bool = True, dtype: Any = 'l') -> tuple[Any, Any]:
    # The [start, end) of every window along one axis, in input coordinates (negative or
    # past the end where the window covers padding, unless include_pad is False: then
    # clipped to the input).
    n = conv.get_conv_outsize(size, k, s, p, cover_all, d)
    starts = -p + numpy.arange(n, dtype=dtype) * s
    ends = starts + k
    if not include_pad:
        starts = numpy.maximum(starts, 0)
        ends = numpy.minimum(ends, size)
    return starts, ends


def average_pooling_nd(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = None,
                       pad: ShapeSpec = 0, pad_value: float | None = 0) -> Variable:
    """N-dimensional spatial average pooling: the mean of every window, channel by channel.

    The number of spatial axes N is ``x.ndim - 2``. Windows start at ``-pad`` and move by
    ``stride``; there are ``(d + 2 * p - k) // s + 1`` of them along each axis (no
    ``cover_all`` mode, as in Chainer).

    Args:
        x: A float Variable or array of shape ``(n, c, d_1, ..., d_N)``.
        ksize: Window size: an int or a tuple of N ints.
        stride: Stride: an int, a tuple of N ints, or None (the window size).
        pad: Padding on each side: an int or a tuple of N ints.
        pad_value: 0 (the padding counts as zeros, so averages near the border lean towards
            zero) or None (the padding is left out: each window is averaged over the input
            elements it covers).

    Returns:
        A Variable of shape ``(n, c, out_1, ..., out_N)``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.array([[[1., 3., 5.]]])
        >>> F.average_pooling_nd(x, 2, stride=1, pad=1).array
        array([[[0.5, 2. , 4. , 2.5]]])
        >>> F.average_pooling_nd(x, 2, stride=1, pad=1, pad_value=None).array
        array([[[1., 2., 4., 5.]]])
    """
    ndim = max(len(x.shape) - 2, 1)
    return AveragePoolingND(ndim, ksize, stride, pad, pad_value).apply((x,))[0]


def average_pooling_1d(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = None,
                       pad: ShapeSpec = 0, pad_value: float | None = 0) -> Variable:
    """1-dimensional spatial average pooling: :func:`average_pooling_nd` on ``(n, c, w)``.

    Args:
        x: A float Variable or array of shape ``(n, c, w)``.
        ksize: Window size: an int or a 1-tuple.
        stride: Stride: an int, a 1-tuple, or None (the window size).
        pad: Padding on each side: an int or a 1-tuple.
        pad_value: 0 (the padding counts as zeros) or None (the padding is left out).

    Returns:
        A Variable of shape ``(n, c, out_w)``.

    Raises:
        ValueError: If ``x`` does not have 3 dimensions.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.average_pooling_1d(np.array([[[1., 3., 5., 7.]]]), 2).array
        array([[[2., 6.]]])
    """
    max_pooling_nd._check_ndim('average_pooling_1d', x, 1)
    return average_pooling_nd(x, ksize, stride, pad, pad_value)


def average_pooling_3d(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = None,
                       pad: ShapeSpec = 0, pad_value: float | None = 0) -> Variable:
    """3-dimensional spatial average pooling: :func:`average_pooling_nd` on ``(n, c, d, h, w)``.

    Args:
        x: A float Variable or array of shape ``(n, c, d, h, w)``.
        ksize: Window size: an int or a triple.
        stride: Stride: an int, a triple, or None (the window size).
        pad: Padding on each side: an int or a triple.
        pad_value: 0 (the padding counts as zeros) or None (the padding is left out).

    Returns:
        A Variable of shape ``(n, c, out_d, out_h, out_w)``.

    Raises:
        ValueError: If ``x`` does not have 5 dimensions.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.average_pooling_3d(np.arange(8.0).reshape(1, 1, 2, 2, 2), 2).array
        array([[[[[3.5]]]]])
    """
    max_pooling_nd._check_ndim('average_pooling_3d', x, 3)
    return average_pooling_nd(x, ksize, stride, pad, pad_value)
