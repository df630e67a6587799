"""N-dimensional spatial max pooling."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, overload

import numpy

from chainlite import _lazy
from chainlite import backend
from chainlite import function_node
from chainlite.functions.pooling import _pooling
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import ShapeSpec, VariableOrArray
    from chainlite.variable import Variable


class MaxPoolingND(function_node.FunctionNode):

    def __init__(self, ndim: int, ksize: ShapeSpec, stride: ShapeSpec | None = None,
                 pad: ShapeSpec = 0, cover_all: bool = True, return_indices: bool = False) -> None:
        label = self.label
        self.ndim = ndim
        self.ksize = _pooling.as_tuple(ksize, ndim, 'ksize', label)
        self.stride = self.ksize if stride is None else _pooling.as_tuple(
            stride, ndim, 'stride', label)
        self.pad = _pooling.as_tuple(pad, ndim, 'pad', label)
        _pooling.check_args(self.ksize, self.stride, self.pad, label)
        self.cover_all = cover_all
        self.return_indices = return_indices
        self.indexes = None

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x, = in_types
        type_check.expect(x.dtype.kind == 'f', x.ndim == 2 + self.ndim)
        # At least one window position per axis (cover_all may run into the padding).
        for i, (k, s, p) in enumerate(zip(self.ksize, self.stride, self.pad)):
            extra = 2 * p + (s - 1 if self.cover_all else 0)
            type_check.expect(x.shape[2 + i] + extra >= k)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self._windows = _pooling.Windows.pooling(x.shape[2:], self.ksize, self.stride,
                                                 self.pad, self.cover_all)
        y, self.indexes = _pooling.max_with_indexes(x, self._windows)
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return _MaxPoolingNDGrad(self._windows, self.indexes).apply(grad_outputs)


class _MaxPoolingNDGrad(function_node.FunctionNode):
    # Routes gy to the argmax of each window; its own gradient gathers at the argmax.

    def __init__(self, windows, indexes):
        self._windows = windows
        self.indexes = indexes

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        gy, = inputs
        return _pooling.scatter(gy, self.indexes, self._windows),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return _MaxPoolingNDWithIndexes(self._windows, self.indexes).apply(grad_outputs)


class _MaxPoolingNDWithIndexes(function_node.FunctionNode):
    # Max pooling with the argmax fixed: picks each window's element at the stored offset.

    def __init__(self, windows, indexes):
        self._windows = windows
        self.indexes = indexes

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        return _pooling.gather(x, self.indexes, self._windows),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return _MaxPoolingNDGrad(self._windows, self.indexes).apply(grad_outputs)


class MaxPoolingNDGrad(_MaxPoolingNDGrad):
    """The input gradient of max pooling as Chainer's node, ``MaxPoolingNDGrad(f)``.

    Applied to ``(gy,)`` after the forward node ``f`` has run, it routes each output's
    gradient to the argmax of its window; differentiable again (through
    :class:`MaxPoolingNDWithIndexes`).

    Args:
        func: The :class:`MaxPoolingND` node whose forward has run.
    """

    def __init__(self, func: MaxPoolingND) -> None:
        super().__init__(func._windows, func.indexes)
        self.func = func


class MaxPoolingNDWithIndexes(_MaxPoolingNDWithIndexes):
    """Max pooling with the argmax of a run forward fixed, as Chainer's node.

    Applied to ``(x,)``, it picks from each window the element at the position where the
    forward node ``func`` found the maximum (the second derivative of max pooling).

    Args:
        func: The :class:`MaxPoolingND` node whose forward has run.
    """

    def __init__(self, func: MaxPoolingND) -> None:
        super().__init__(func._windows, func.indexes)
        self.func = func


def _apply(node, x):
    y, = node.apply((x,))
    if node.return_indices:
        xp = backend.get_array_module(node.indexes)
        return y, node.indexes.astype(xp.intp)
    return y


@overload
def max_pooling_nd(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = ...,
                   pad: ShapeSpec = ..., cover_all: bool = ...,
                   return_indices: Literal[False] = ...) -> Variable: ...


@overload
def max_pooling_nd(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = ...,
                   pad: ShapeSpec = ..., cover_all: bool = ..., *,
                   return_indices: Literal[True]) -> tuple[Variable, numpy.ndarray]: ...


@overload
def max_pooling_nd(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = ...,
                   pad: ShapeSpec = ..., cover_all: bool = ...,
                   return_indices: bool = ...) -> Variable | tuple[Variable, numpy.ndarray]: ...


def max_pooling_nd(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = None,
                   pad: ShapeSpec = 0, cover_all: bool = True,
                   return_indices: bool = False) -> Variable | tuple[Variable, numpy.ndarray]:
    """N-dimensional spatial max pooling: the maximum of every window, channel by channel.

    The number of spatial axes N is ``x.ndim - 2``. Windows start at ``-pad`` and move by
    ``stride``; the padding never wins the maximum. Along each axis there are
    ``(d + 2 * p - k) // s + 1`` windows, or ``(d + 2 * p - k + s - 1) // s + 1`` with
    ``cover_all`` (the last windows may then run past the far padding).

    Args:
        x: A float Variable or array of shape ``(n, c, d_1, ..., d_N)``.
        ksize: Window size: an int or a tuple of N ints.
        stride: Stride: an int, a tuple of N ints, or None (the window size).
        pad: Padding on each side: an int or a tuple of N ints.
        cover_all: Add windows so that every input element is pooled into some output.
        return_indices: Also return the offset of the maximum inside each window (first
            maximum on ties, numbered in C order over the window), as an integer array of the
            output's shape, for :func:`~chainlite.functions.upsampling_2d`.

    Returns:
        A Variable of shape ``(n, c, out_1, ..., out_N)``, or the pair ``(y, indexes)`` with
        ``return_indices``. The gradient goes to the maximum of each window only.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.arange(8.0).reshape(1, 1, 2, 2, 2)
        >>> F.max_pooling_nd(x, 2).array
        array([[[[[7.]]]]])
    """
    ndim = max(len(x.shape) - 2, 1)
    return _apply(MaxPoolingND(ndim, ksize, stride, pad, cover_all, return_indices), x)


def _check_ndim(name, x, ndim):
    got = len(x.shape) - 2
    if got != ndim:
        raise ValueError(
            '{}: the input x must have {} spatial axes after (batch, channel), i.e. {} '
            'dimensions; got x of shape {} ({} dimensions)'.format(
                name, ndim, ndim + 2, tuple(x.shape), len(x.shape)))


@overload
def max_pooling_1d(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = ...,
                   pad: ShapeSpec = ..., cover_all: bool = ...,
                   return_indices: Literal[False] = ...) -> Variable: ...


@overload
def max_pooling_1d(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = ...,
                   pad: ShapeSpec = ..., cover_all: bool = ..., *,
                   return_indices: Literal[True]) -> tuple[Variable, numpy.ndarray]: ...


@overload
def max_pooling_1d(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = ...,
                   pad: ShapeSpec = ..., cover_all: bool = ...,
                   return_indices: bool = ...) -> Variable | tuple[Variable, numpy.ndarray]: ...


def max_pooling_1d(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = None,
                   pad: ShapeSpec = 0, cover_all: bool = True,
                   return_indices: bool = False) -> Variable | tuple[Variable, numpy.ndarray]:
    """1-dimensional spatial max pooling: :func:`max_pooling_nd` on ``(n, c, w)`` inputs.

    Args:
        x: A float Variable or array of shape ``(n, c, w)``.
        ksize: Window size: an int or a 1-tuple.
        stride: Stride: an int, a 1-tuple, or None (the window size).
        pad: Padding on each side: an int or a 1-tuple.
        cover_all: Add windows so that every input element is pooled into some output.
        return_indices: Also return the offset of the maximum inside each window.

    Returns:
        A Variable of shape ``(n, c, out_w)``, or ``(y, indexes)`` with ``return_indices``.

    Raises:
        ValueError: If ``x`` does not have 3 dimensions.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.max_pooling_1d(np.array([[[1., 5., 2., 0.]]]), 2).array
        array([[[5., 2.]]])
    """
    _check_ndim('max_pooling_1d', x, 1)
    return max_pooling_nd(x, ksize, stride, pad, cover_all, return_indices)


@overload
def max_pooling_3d(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = ...,
                   pad: ShapeSpec = ..., cover_all: bool = ...,
                   return_indices: Literal[False] = ...) -> Variable: ...


@overload
def max_pooling_3d(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = ...,
                   pad: ShapeSpec = ..., cover_all: bool = ..., *,
                   return_indices: Literal[True]) -> tuple[Variable, numpy.ndarray]: ...


@overload
def max_pooling_3d(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = ...,
                   pad: ShapeSpec = ..., cover_all: bool = ...,
                   return_indices: bool = ...) -> Variable | tuple[Variable, numpy.ndarray]: ...


def max_pooling_3d(x: VariableOrArray, ksize: ShapeSpec, stride: ShapeSpec | None = None,
                   pad: ShapeSpec = 0, cover_all: bool = True,
                   return_indices: bool = False) -> Variable | tuple[Variable, numpy.ndarray]:
    """3-dimensional spatial max pooling: :func:`max_pooling_nd` on ``(n, c, d, h, w)`` inputs.

    Args:
        x: A float Variable or array of shape ``(n, c, d, h, w)``.
        ksize: Window size: an int or a triple.
        stride: Stride: an int, a triple, or None (the window size).
        pad: Padding on each side: an int or a triple.
        cover_all: Add windows so that every input element is pooled into some output.
        return_indices: Also return the offset of the maximum inside each window.

    Returns:
        A Variable of shape ``(n, c, out_d, out_h, out_w)``, or ``(y, indexes)`` with
        ``return_indices``.

    Raises:
        ValueError: If ``x`` does not have 5 dimensions.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.max_pooling_3d(np.arange(8.0).reshape(1, 1, 2, 2, 2), 2).array
        array([[[[[7.]]]]])
    """
    _check_ndim('max_pooling_3d', x, 3)
    return max_pooling_nd(x, ksize, stride, pad, cover_all, return_indices)


# Chainer's module also has max_pooling_2d; chainlite keeps it in its own module (which may import
# this one), imported on first use.
__getattr__, __dir__ = _lazy.attach(
    __name__, {'max_pooling_2d': 'chainlite.functions.pooling.max_pooling_2d'})[:2]
