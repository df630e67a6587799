"""Tensor dot product: sum of products over paired axes of two arrays."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import _blas
from chainlite import function_node
from chainlite.functions import _axis
from chainlite.functions.array import cast
from chainlite.functions.array import transpose
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def _normalize(axes, a_ndim, b_ndim):
    # Returns the contracted axes of a and of b as two equally long tuples of
    # non-negative ints, in pairing order.
    if isinstance(axes, (int, numpy.integer)) and not isinstance(axes, bool):
        n = int(axes)
        if not 0 <= n <= min(a_ndim, b_ndim):
            raise type_check.InvalidType(
                '0 <= axes <= min(a.ndim, b.ndim)',
                'axes = %d, a.ndim = %d, b.ndim = %d' % (n, a_ndim, b_ndim),
                msg='Invalid operation is performed in: TensorDot (Forward)\n\n'
                    'Expect: 0 <= axes <= min(a.ndim, b.ndim)\nActual: axes = %d, '
                    'a.ndim = %d, b.ndim = %d' % (n, a_ndim, b_ndim))
        return tuple(range(a_ndim - n, a_ndim)), tuple(range(n))
    if not isinstance(axes, (tuple, list)) or len(axes) != 2:
        raise TypeError('tensordot: axes must be an int or a pair of sequences of ints, '
                        'got %r' % (axes,))
    pair = []
    for ax, ndim in zip(axes, (a_ndim, b_ndim)):
        ax = tuple(ax) if isinstance(ax, (tuple, list)) else (ax,)
        ax = tuple(_axis.normalize_axis(a, ndim, 'TensorDot') for a in ax)
        if len(set(ax)) != len(ax):
            raise ValueError('tensordot: duplicate value in axes: %r' % (axes,))
        pair.append(ax)
    if len(pair[0]) != len(pair[1]):
        raise ValueError('tensordot: axes of a and of b differ in number: %r' % (axes,))
    return tuple(pair)


def _tensordot(a: numpy.ndarray, b: numpy.ndarray, a_axes: Sequence[Sequence[int]],
               b_axes: Sequence[Sequence[int]],
               c_axes: Sequence[Sequence[int]] | None = None) -> numpy.ndarray:
    # Chainer's array tensordot: a_axes = (a's free axes, a's contracted axes), b_axes =
    # (b's contracted axes, b's free axes); c_axes = (where a's free axes go in the
    # result, where b's go), by default a's then b's in axis order.
    a_free, a_sum = a_axes
    b_sum, b_free = b_axes
    if len(a_sum) != len(b_sum):
        raise ValueError('axes count mismatch')
    if a.ndim < len(a_sum) or b.ndim < len(b_sum):
        raise ValueError('dimension of input tensors must be greater equal to dot-axes '
                         'count ({})'.format(len(a_sum)))
    for i, j in zip(a_sum, b_sum):
        if a.shape[i] != b.shape[j]:
            raise ValueError('shape mismatch')
    y = numpy.tensordot(a, b, axes=(tuple(a_sum), tuple(b_sum)))
    if c_axes is None:
        return y
    if len(a_free) != len(c_axes[0]) or len(b_free) != len(c_axes[1]):
        raise ValueError('axes count mismatch')
    # y holds a's free axes in a's order, then b's in b's: rank each within its operand.
    a_rank = {ax: r for r, ax in enumerate(sorted(a_free))}
    b_rank = {ax: r + len(a_free) for r, ax in enumerate(sorted(b_free))}
    order = [0] * y.ndim
    for ax, c in zip(a_free, c_axes[0]):
        order[c] = a_rank[ax]
    for ax, c in zip(b_free, c_axes[1]):
        order[c] = b_rank[ax]
    return y.transpose(order)


class TensorDot(function_node.FunctionNode):
    """tensordot's node, with Chainer's signature.

    Args:
        axes: As in :func:`tensordot` (used when ``a_axes`` and ``b_axes`` are None).
        a_axes: ``(free axes of a, contracted axes of a)``.
        b_axes: ``(contracted axes of b, free axes of b)``, paired in order with a's.
        c_axes: ``(output positions of a's free axes, those of b's)``; None: a's free axes
            first, then b's, each in axis order.
        dtype: The output dtype (None: the inputs' promoted one).
    """

    def __init__(self, axes: Any = 2, a_axes: Sequence[Sequence[int]] | None = None,
                 b_axes: Sequence[Sequence[int]] | None = None,
                 c_axes: Sequence[Sequence[int]] | None = None, dtype: Any = None) -> None:
        if not isinstance(axes, (int, numpy.integer, tuple, list)) or isinstance(axes, bool):
            raise TypeError('axes must be a pair of sequence of integers or an integer')
        if isinstance(axes, (tuple, list)) and len(axes) != 2:
            raise ValueError('axes must be a pair of sequence of integers when it is a list '
                             'or tuple.')
        self.axes = axes
        self.a_axes = a_axes
        self.b_axes = b_axes
        self.c_axes = c_axes
        self.dtype = dtype

    def _pairing(self, a_ndim, b_ndim):
        # The contracted axes of a and of b, paired in order (non-negative).
        if self.a_axes is None or self.b_axes is None:
            a_sum, b_sum = _normalize(self.axes, a_ndim, b_ndim)
            a_free = [i for i in range(a_ndim) if i not in a_sum]
            b_free = [j for j in range(b_ndim) if j not in b_sum]
            self.a_axes, self.b_axes = (a_free, list(a_sum)), (list(b_sum), b_free)
        return (tuple(i % a_ndim for i in self.a_axes[1]),
                tuple(j % b_ndim for j in self.b_axes[0]))

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('a', 'b'))
        a, b = in_types
        # Mixed float dtypes as in Chainer: the result has the promoted dtype.
        type_check.expect(a.dtype.kind == 'f', b.dtype.kind == 'f')
        a_sum, b_sum = self._pairing(type_check.eval(a.ndim), type_check.eval(b.ndim))
        type_check.expect(a.ndim >= len(a_sum), b.ndim >= len(b_sum))
        for i, j in zip(a_sum, b_sum):
            type_check.expect(a.shape[i] == b.shape[j])

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        a, b = inputs
        a_sum, b_sum = self._pairing(a.ndim, b.ndim)
        y = _blas.tensordot(a, b, (a_sum, b_sum))
        if self.c_axes is not None:
            y = y.transpose(self._output_order(a.ndim, b.ndim))
        if self.dtype is not None:
            y = y.astype(self.dtype, copy=False)
        return y,

    def _output_order(self, a_ndim, b_ndim):
        # The axes of the natural result (a's free axes, then b's) in the output's order.
        assert self.a_axes is not None and self.b_axes is not None and \
            self.c_axes is not None
        a_free = [i % a_ndim for i in self.a_axes[0]]
        b_free = [j % b_ndim for j in self.b_axes[1]]
        a_rank = {ax: r for r, ax in enumerate(sorted(a_free))}
        b_rank = {ax: r + len(a_free) for r, ax in enumerate(sorted(b_free))}
        order = [0] * (len(a_free) + len(b_free))
        for ax, c in zip(a_free, self.c_axes[0]):
            order[c] = a_rank[ax]
        for ax, c in zip(b_free, self.c_axes[1]):
            order[c] = b_rank[ax]
        return order

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        a, b = self.get_retained_inputs()
        gy, = grad_outputs
        a_sum, b_sum = self._pairing(a.ndim, b.ndim)
        a_axes, b_axes = list(a_sum), list(b_sum)
        if self.c_axes is not None:
            # Back to the natural order: a's free axes, then b's.
            gy = _back_to(gy, self._output_order(a.ndim, b.ndim))
        a_free = [i for i in range(a.ndim) if i not in a_axes]
        b_free = [j for j in range(b.ndim) if j not in b_axes]
        gy_a = tuple(range(len(a_free)))               # gy's axes that came from a
        gy_b = tuple(range(len(a_free), gy.ndim))      # and from b
        ret = []
        if 0 in indexes:
            # gy . b over b's free axes leaves a's free axes, then the contracted axes
            # in b's axis order; a transpose puts them back in a's order.
            ga = tensordot(gy, b, (gy_b, b_free))
            order = a_free + [a_axes[b_axes.index(j)] for j in sorted(b_axes)]
            ret.append(cast.cast_to(_back_to(ga, order), a.dtype))
        if 1 in indexes:
            gb = tensordot(a, gy, (a_free, gy_a))
            order = [b_axes[a_axes.index(i)] for i in sorted(a_axes)] + b_free
            ret.append(cast.cast_to(_back_to(gb, order), b.dtype))
        return tuple(ret)


def _back_to(x, order):
    # x's axis k is the original axis order[k]: permute to the original order.
    perm = tuple(int(k) for k in numpy.argsort(order))
    return x if perm == tuple(range(len(perm))) else transpose.transpose(x, perm)


def tensordot(a: VariableOrArray, b: VariableOrArray,
              axes: int | Sequence[int] | Sequence[Sequence[int]] = 2) -> Variable:
    """Tensor dot product: sums the products of ``a`` and ``b`` over paired axes.

    As :func:`numpy.tensordot`: the result's axes are ``a``'s remaining axes followed by
    ``b``'s.

    Args:
        a: A float Variable or array.
        b: A float Variable or array; with another dtype than ``a``, the result has the
            promoted dtype and each gradient its input's.
        axes: An int ``n`` pairs the last ``n`` axes of ``a`` with the first ``n`` axes of
            ``b``; a pair of sequences (or of ints) ``(a_axes, b_axes)`` names the paired
            axes (negative values count from the end).

    Returns:
        A Variable.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.tensordot(np.ones((5, 3, 2)), np.ones((3, 2, 4))).shape
        (5, 4)
        >>> F.tensordot(np.ones((3, 2)), np.ones((2, 3)), axes=([0, 1], [1, 0])).array
        array(6.)
    """
    try:
        a_sum, b_sum = _normalize(axes, a.ndim, b.ndim)
        a_free = [i for i in range(a.ndim) if i not in a_sum]
        b_free = [j for j in range(b.ndim) if j not in b_sum]
        return TensorDot(axes, (a_free, a_sum), (b_sum, b_free)).apply((a, b))[0]
    except (type_check.InvalidType, TypeError) as e:
        # Chainer raises ValueError for every bad axes argument and shape mismatch.
        raise type_check._also(e, ValueError) from None
