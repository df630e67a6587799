"""Elementwise sign (not differentiable)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy

from chainlite.functions.math import _outside_graph

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def sign(x: VariableOrArray) -> Variable:
    """Elementwise sign: -1 for negative elements, 0 for zeros, 1 for positive ones.

    NaN stays NaN. The gradient is zero wherever it is defined, so, as in Chainer, the result
    has no creator and ``requires_grad=False``.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype, outside the graph.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.sign(np.array([-2.5, 0.0, 3.0])).array
        array([-1.,  0.,  1.])
    """
    return _outside_graph.elementwise('sign', numpy.sign, x)
