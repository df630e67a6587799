"""Rectified linear unit capped at 6."""
from __future__ import annotations

from typing import TYPE_CHECKING

from chainlite.functions.activation import clipped_relu

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class ReLU6(clipped_relu.ClippedReLU):
    # clipped_relu with z = 6, under its own name for error messages.

    def __init__(self) -> None:
        super().__init__(6.0)


def relu6(x: VariableOrArray) -> Variable:
    """Rectified linear unit capped at 6, ``min(max(0, x), 6)``, elementwise.

    The same as ``clipped_relu(x, 6.0)``: the gradient is 1 on ``(0, 6)`` and 0 elsewhere.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.relu6(np.array([-1.0, 3.0, 7.0])).array
        array([0., 3., 6.])
    """
    return ReLU6().apply((x,))[0]
