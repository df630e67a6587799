"""Move axes of an array to new positions (a view)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence, cast

import numpy

from chainlite import function_node
from chainlite.functions import _axis
from chainlite.functions.array import transpose

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _as_axis_tuple(axes: int | Sequence[int], name: str) -> tuple[int, ...]:
    t = tuple(axes) if isinstance(axes, (tuple, list)) else (axes,)
    for a in t:
        if not isinstance(a, (int, numpy.integer)) or isinstance(a, bool):
            raise TypeError('moveaxis: %s must be an int or a tuple of ints, got %r'
                            % (name, t))
    return cast(tuple[int, ...], t)


def _normalize_axis_tuple(axis: Sequence[int], ndim: int) -> list[int]:
    # Axes as non-negative ints (Chainer's helper: no range check).
    return [ax % ndim for ax in axis]


def _moveaxis(a: numpy.ndarray, source: Sequence[int], destination: Sequence[int],
              xp: Any) -> numpy.ndarray:
    # xp.moveaxis with Chainer's argument order (array module last).
    return xp.moveaxis(a, source, destination)


class Moveaxis(function_node.FunctionNode):

    def __init__(self, source: tuple[int, ...], destination: tuple[int, ...]) -> None:
        self.source = source
        self.destination = destination

    def _permutation(self, ndim):
        # Rollaxis overrides this: the rest of the node serves it as is.
        src = [_axis.normalize_axis(a, ndim, self.label) for a in self.source]
        dst = [_axis.normalize_axis(a, ndim, self.label) for a in self.destination]
        for name, axes in (('source', src), ('destination', dst)):
            if len(set(axes)) != len(axes):
                raise ValueError('%s: duplicate value in %s axis: %s'
                                 % (self.label, name, getattr(self, name)))
        perm = [a for a in range(ndim) if a not in src]
        for d, s in sorted(zip(dst, src)):
            perm.insert(d, s)
        return perm

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self._perm = tuple(self._permutation(x.ndim))
        return x.transpose(self._perm),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, = grad_outputs
        inv = tuple(numpy.argsort(self._perm).tolist())
        return transpose.Transpose(inv).apply((gy,))


def moveaxis(x: VariableOrArray, source: int | Sequence[int],
             destination: int | Sequence[int]) -> Variable:
    """Moves the axes ``source`` of ``x`` to the positions ``destination``.

    The other axes keep their order. See also :func:`~chainlite.functions.transpose` and
    :func:`~chainlite.functions.swapaxes`.

    Args:
        x: A Variable or array.
        source: An int or a tuple of distinct ints: the axes to move (negative values count
            from the end).
        destination: An int or a tuple of distinct ints, as long as ``source``: where each
            of those axes goes in the output.

    Returns:
        A Variable (a view of ``x``'s data).

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.zeros((2, 3, 4, 5))
        >>> F.moveaxis(x, 0, -1).shape
        (3, 4, 5, 2)
        >>> F.moveaxis(x, (0, 3), (2, 0)).shape
        (5, 3, 2, 4)
    """
    src = _as_axis_tuple(source, 'source')
    dst = _as_axis_tuple(destination, 'destination')
    if len(src) != len(dst):
        raise ValueError('moveaxis: source and destination must have the same length, got '
                         '%s and %s' % (src, dst))
    return Moveaxis(src, dst).apply((x,))[0]
