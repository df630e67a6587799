"""Minimum of array elements over given axes."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from chainlite.functions import _axis
from chainlite.functions.math import max as max_mod

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Min(max_mod.Max):
    # Max's backward holds as is: the mask marks the elements equal to the result.

    def _fwd(self, x, xp):
        return x.min(axis=self.axis, keepdims=self.keepdims)


def min(x: VariableOrArray, axis: int | Sequence[int] | None = None,
        keepdims: bool = False) -> Variable:
    """Minimum of array elements over the given axes.

    The gradient flows to the elements equal to the minimum; in a tie, each of them receives
    the whole output gradient (as in Chainer).

    Args:
        x: A float Variable or array.
        axis: None (all axes), an int, or a tuple of ints; negative values count from the end.
        keepdims: Keep the reduced axes with length 1.

    Returns:
        A Variable of the same dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.min(np.array([[1.0, 5.0, 2.0], [4.0, 0.0, 3.0]]), axis=1).array
        array([1., 0.])
    """
    _axis.check_type(axis, 'min')
    return Min(axis, keepdims).apply((x,))[0]
