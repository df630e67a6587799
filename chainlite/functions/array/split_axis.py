"""Split an array into pieces along an axis (views)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Sequence, overload

import numpy

import collections.abc

from chainlite import backend
from chainlite import configuration
from chainlite import function_node
from chainlite.functions import _axis
from chainlite.functions.array import concat
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _indices_or_sections(ios: Any) -> int | tuple[int, ...]:
    # An int is a number of equal sections; anything else a sorted 1-D list of split points.
    if isinstance(ios, (int, numpy.integer)) and not isinstance(ios, bool):
        if ios <= 0:
            raise ValueError('split_axis: the number of sections must be positive, got %d'
                             % ios)
        return int(ios)
    arr = numpy.asarray(ios)
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in 'iu'):
        raise TypeError('split_axis: indices_or_sections must be an int or a 1-D sequence of '
                        'ints, got %r' % (ios,))
    indices = [int(i) for i in arr]
    # Unsorted or negative points would give pieces that do not tile the axis, and then the
    # gradient could not be put back together.
    if any(i < 0 for i in indices) or any(a > b for a, b in zip(indices, indices[1:])):
        raise ValueError('split_axis: indices must be non-negative and sorted, got %r'
                         % (indices,))
    return tuple(indices)


def _get_indices_or_sections(indices_or_sections: Any) -> tuple[Any, Any]:
    # Chainer's check: ``(indices, None)`` for a 1-D sequence (a list, or the array itself),
    # ``(None, sections)`` for an int; a TypeError for anything else. Unsorted indices are a
    # ValueError in debug mode.
    ios = indices_or_sections
    is_seq = False
    if isinstance(ios, numpy.ndarray):
        # An empty array of floats (numpy.array([])) counts as no split points.
        if ios.dtype.kind != 'i' and ios.size > 0:
            raise TypeError('indices_or_sections must be integers')
        if ios.ndim >= 2:
            raise TypeError('indices_or_sections must be 1-D sequence')
        is_seq = ios.ndim != 0
    elif isinstance(ios, collections.abc.Sequence):
        ios = list(ios)
        is_seq = True
    elif not isinstance(ios, (int, numpy.integer)):
        raise TypeError('indices_or_sections must be integer or 1-D array.\n'
                        'Actual: {}'.format(type(indices_or_sections)))
    if is_seq and configuration.config.debug:
        for p, n in zip(ios, ios[1:]):
            if p > n:
                raise ValueError('indices_or_sections must be sorted')
    return (ios, None) if is_seq else (None, ios)


def _fix_numpy_split(ys: list, x: numpy.ndarray, indices_or_sections: Any,
                     axis: int) -> list:
    # Gives the pieces of numpy.split that lost their axes (old NumPy's empty pieces) the
    # rank of x back, with their length along ``axis``.
    if all(y.ndim == x.ndim for y in ys):
        return ys
    lengths = [len(t) for t in numpy.split(numpy.empty(x.shape[axis], numpy.int8),
                                           indices_or_sections, 0)]
    shape = list(x.shape)
    for i, n in enumerate(lengths):
        if ys[i].ndim != x.ndim:
            shape[axis] = n
            ys[i] = ys[i].reshape(shape)
    return ys


class SplitAxis(function_node.FunctionNode):

    def __init__(self, indices_or_sections: int | tuple[int, ...], axis: int) -> None:
        self.indices_or_sections = indices_or_sections
        self.axis = axis  # non-negative: split_axis() normalized it

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x, = in_types
        ios = self.indices_or_sections
        if isinstance(ios, int):
            sections = type_check.make_variable(ios, 'sections')
            type_check.expect(x.shape[self.axis] % sections == 0)
        elif ios:
            last = type_check.make_variable(ios[-1], 'indices[-1]')
            type_check.expect(x.shape[self.axis] >= last)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        ys = xp.split(x, self.indices_or_sections, self.axis)
        self._shapes = [y.shape for y in ys]
        return tuple(ys)

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        if len(grad_outputs) == 1:
            return grad_outputs
        # An unused piece has no gradient: it contributes zeros.
        dtype = in_nodes[0].dtype
        xp = backend.get_array_module(*grad_outputs)
        gys = [xp.zeros(s, dtype) if g is None else g
               for g, s in zip(grad_outputs, self._shapes)]
        return concat.concat(gys, self.axis),


@overload
def split_axis(x: VariableOrArray, indices_or_sections: int | Sequence[int] | numpy.ndarray,
               axis: int, force_tuple: Literal[True] = True) -> tuple[Variable, ...]: ...


@overload
def split_axis(x: VariableOrArray, indices_or_sections: int | Sequence[int] | numpy.ndarray,
               axis: int, force_tuple: bool = True) -> Variable | tuple[Variable, ...]: ...


def split_axis(x: VariableOrArray, indices_or_sections: int | Sequence[int] | numpy.ndarray,
               axis: int, force_tuple: bool = True) -> Variable | tuple[Variable, ...]:
    """Splits a Variable or array into pieces along an axis.

    Args:
        x: A Variable or array.
        indices_or_sections: An int ``N`` to split into ``N`` equal pieces (it must divide the
            length of ``axis``), or a sorted 1-D sequence of non-negative split points, as in
            :func:`numpy.split`.
        axis: The axis to split (negative values count from the end).
        force_tuple: If False, a single piece is returned as a Variable, not a 1-tuple.

    Returns:
        A tuple of Variables (views of ``x``'s data), or one Variable (see ``force_tuple``).
        Pieces left out of the loss get zero gradients.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> [y.shape for y in F.split_axis(np.zeros((2, 5)), [1, 3], axis=1)]
        [(2, 1), (2, 2), (2, 2)]
    """
    ndim = getattr(x, 'ndim', None)
    if ndim is not None:
        axis = _axis.normalize_axis(axis, ndim, 'SplitAxis')
    ys = SplitAxis(_indices_or_sections(indices_or_sections), axis).apply((x,))
    if not force_tuple and len(ys) == 1:
        return ys[0]
    return ys
