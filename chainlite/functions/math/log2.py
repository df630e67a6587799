"""Elementwise base-2 logarithm."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy

from chainlite.functions.math import _log_base

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Log2(_log_base.LogBase):

    _log = numpy.log2
    _inv_ln_base = 1 / math.log(2)


def log2(x: VariableOrArray) -> Variable:
    """Elementwise base-2 logarithm.

    Args:
        x: A float Variable or array (positive values; NumPy's nan/-inf elsewhere).

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.log2(np.array([1.0, 8.0])).array
        array([0., 3.])
    """
    return Log2().apply((x,))[0]
