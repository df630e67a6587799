"""Flatten an array into one dimension (a reshape)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from chainlite import variable
from chainlite.functions.array import reshape

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def flatten(x: VariableOrArray) -> Variable:
    """Flattens ``x`` into one dimension, in C order.

    A composition of :func:`~chainlite.functions.reshape`: a view where NumPy gives one, and
    a 0-d input becomes shape ``(1,)``.

    Args:
        x: A Variable or array.

    Returns:
        A Variable of shape ``(x.size,)``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.flatten(np.array([[1.0, 2.0], [3.0, 4.0]])).array
        array([1., 2., 3., 4.])
    """
    return reshape.reshape(x, (variable.as_array(x).size,))
