"""Permute the slices of an array along an axis."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import configuration
from chainlite import function_node
from chainlite.backends import cuda
from chainlite.functions import _axis
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _inverse(indices):
    # The permutation that undoes ``indices``; -1 left over means it was no permutation.
    xp = backend.get_array_module(indices)
    inv = xp.full(len(indices), -1, indices.dtype)
    inv[indices] = xp.arange(len(indices), dtype=indices.dtype)
    return inv


def _check_indices(indices: numpy.ndarray) -> None:
    # A permutation of range(len(indices)), else ValueError naming the offending entry.
    # The check reads every value: a GPU array's are copied to the host.
    indices = cuda.to_cpu(indices) if cuda.is_gpu_array(indices) else numpy.asarray(indices)
    if len(indices) == 0:
        return
    for i in indices:
        if not 0 <= i < len(indices):
            raise ValueError('Out of bounds index: {}'.format(i))
    ordered = numpy.sort(indices)
    for s, t in zip(ordered, ordered[1:]):
        if s == t:
            raise ValueError('indices contains duplicate value: {}'.format(s))


def _inverse_indices(indices: numpy.ndarray) -> numpy.ndarray:
    # The permutation that undoes ``indices`` (a permutation).
    return _inverse(indices)


class Permutate(function_node.FunctionNode):

    def __init__(self, axis: int = 0, inv: bool = False) -> None:
        self.axis = axis  # non-negative: permutate() normalized it
        self.inv = inv

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'indices'))
        x, indices = in_types
        type_check.expect(indices.dtype.kind == 'i', indices.ndim == 1,
                          x.shape[self.axis] == indices.shape[0])

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((1,))
        x, indices = inputs
        n = len(indices)
        # On a GPU the indices are checked (read on the host) in debug mode only, as in
        # Chainer: no device-to-host wait per call otherwise.
        check = indices.__class__ is numpy.ndarray or configuration.config.debug
        if check and n and not (0 <= indices.min() and indices.max() < n):
            raise ValueError('permutate: indices out of range [0, %d): %s' % (n, indices))
        inv = _inverse(indices)
        if check and (inv < 0).any():
            raise ValueError('permutate: indices must be a permutation of range(%d), got %s'
                             % (n, indices))
        return x.take(inv if self.inv else indices, axis=self.axis),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, = grad_outputs
        indices, = self.get_retained_inputs()
        # The inverse permutation sends each gradient back where its slice came from.
        return Permutate(self.axis, not self.inv).apply((gy, indices))[0], None


def permutate(x: VariableOrArray, indices: VariableOrArray, axis: int = 0,
              inv: bool = False) -> Variable:
    """Permutes the slices of ``x`` along an axis: ``y[i] = x[indices[i]]`` (on ``axis``).

    Args:
        x: A Variable or array.
        indices: A Variable or 1-D int array, a permutation of ``range(x.shape[axis])``; it
            gets no gradient.
        axis: The axis to permute (negative values count from the end).
        inv: If True, apply the inverse permutation: ``y[indices[i]] = x[i]``.

    Returns:
        A Variable of the shape and dtype of ``x``.

    Raises:
        ValueError: If ``indices`` is not a permutation.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.array([10.0, 20.0, 30.0])
        >>> F.permutate(x, np.array([2, 0, 1])).array
        array([30., 10., 20.])
        >>> F.permutate(x, np.array([2, 0, 1]), inv=True).array
        array([20., 30., 10.])
    """
    ndim = getattr(x, 'ndim', None)
    if ndim is not None:
        axis = _axis.normalize_axis(axis, ndim, 'Permutate')
    return Permutate(axis, inv).apply((x, indices))[0]
