"""Roll an axis backwards to a given position (a view)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite.functions import _axis
from chainlite.functions.array import moveaxis
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class Rollaxis(moveaxis.Moveaxis):
    # A move of one axis: only the permutation differs from Moveaxis.

    def __init__(self, axis: int, start: int) -> None:
        self.axis = axis
        self.start = start

    def check_type_forward(self, in_types: Any) -> None:
        # start may also be x.ndim (roll to the end); axis is checked by normalize_axis.
        type_check._argname(in_types, ('x',))
        x, = in_types
        type_check.expect(-x.ndim <= self.start, self.start <= x.ndim)

    def _permutation(self, ndim):
        axis = _axis.normalize_axis(self.axis, ndim, self.label)
        start = self.start + ndim if self.start < 0 else self.start
        if not 0 <= start <= ndim:  # reached only with type checking switched off
            raise ValueError('%s: start %d out of range for %d axes'
                             % (self.label, self.start, ndim))
        # Rolling to `start` puts the axis just before what was at `start`.
        dest = start - 1 if axis < start else start
        perm = [a for a in range(ndim) if a != axis]
        perm.insert(dest, axis)
        return perm


def rollaxis(x: VariableOrArray, axis: int, start: int = 0) -> Variable:
    """Rolls the axis ``axis`` of ``x`` backwards until it lies before position ``start``.

    Kept for Chainer compatibility; :func:`~chainlite.functions.moveaxis` says the same more
    plainly.

    Args:
        x: A Variable or array.
        axis: The axis to roll (an int; negative values count from the end).
        start: Where the axis goes: it ends before the axis that was at ``start``
            (``-x.ndim <= start <= x.ndim``; ``x.ndim`` rolls it to the end).

    Returns:
        A Variable (a view of ``x``'s data).

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.zeros((2, 3, 4))
        >>> F.rollaxis(x, 2).shape
        (4, 2, 3)
        >>> F.rollaxis(x, 0, 3).shape
        (3, 4, 2)
    """
    for name, a in (('axis', axis), ('start', start)):
        if not isinstance(a, (int, numpy.integer)) or isinstance(a, bool):
            raise TypeError('rollaxis: %s must be an int, got %r' % (name, a))
    return Rollaxis(int(axis), int(start)).apply((x,))[0]
