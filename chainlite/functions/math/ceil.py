"""Elementwise ceiling (not differentiable)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy

from chainlite.functions.math import _outside_graph

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def ceil(x: VariableOrArray) -> Variable:
    """Elementwise ceiling, the smallest integer not less than each element.

    Its gradient is zero almost everywhere, so, as in Chainer, the result has no creator
    and ``requires_grad=False``.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype, outside the graph.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.ceil(np.array([1.5, -1.5])).array
        array([ 2., -1.])
    """
    return _outside_graph.elementwise('ceil', numpy.ceil, x)
