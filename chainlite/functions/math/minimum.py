"""Elementwise minimum of two inputs."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy

from chainlite.functions.math import maximum

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Minimum(maximum.Maximum):
    # Maximum's backward holds as is: the mask marks where x1 was selected.

    def _select(self, x1, x2):
        return numpy.minimum(x1, x2)

    def _x1_selected(self, x1, x2):
        # Ties go to x1.
        return x1 <= x2


class MinimumGrad(maximum.MaximumGrad):
    """minimum's gradient node (Chainer's): ``MinimumGrad(x1, x2).apply((gy,))`` sends ``gy``
    to ``x1`` where ``x1 <= x2`` and to ``x2`` elsewhere, each part summed to its input's
    shape."""

    def __init__(self, x1: numpy.ndarray, x2: numpy.ndarray) -> None:
        super().__init__(x1, x2)
        self.x1, self.x2 = x1, x2

    def _x1_selected(self, x1, x2):
        return x1 <= x2


def minimum(x1: VariableOrArray, x2: VariableOrArray) -> Variable:
    """Elementwise minimum of two inputs, which broadcast against each other by NumPy's rules.

    Where the inputs are equal, the whole gradient goes to ``x1``.

    Args:
        x1: A float Variable or array.
        x2: A Variable or array of the same dtype, broadcastable with ``x1``.

    Returns:
        A Variable of the broadcast shape and the inputs' dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.minimum(np.array([1.0, 5.0, 3.0]), np.array([4.0, 2.0, 3.0])).array
        array([1., 2., 3.])
    """
    return Minimum().apply((x1, x2))[0]
