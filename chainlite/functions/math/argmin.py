"""Index of the minimum over an axis (not differentiable)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy

from chainlite.functions.math import argmax

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class ArgMin(argmax.IndexSelectorBase):
    """argmin as a node (Chainer's): ``ArgMin(axis).apply((x,))``."""

    def _fwd(self, x, xp):
        return x.argmin(axis=self.axis).astype(numpy.int32)


def argmin(x: VariableOrArray, axis: int | None = None) -> Variable:
    """Index of the minimum element along an axis.

    The result is an integer index with no gradient, so, as in Chainer, it has no creator
    and ``requires_grad=False``. The first occurrence wins in a tie.

    Args:
        x: A float Variable or array.
        axis: None (the index into the flattened array) or an int.

    Returns:
        An int32 Variable, outside the graph.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.argmin(np.array([[1.0, 5.0, 2.0], [4.0, 0.0, 3.0]]), axis=1).array
        array([0, 1], dtype=int32)
    """
    return argmax._select_index(x, axis, 'argmin', 'argmin')
