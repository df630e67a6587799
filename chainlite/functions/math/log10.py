"""Elementwise base-10 logarithm."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy

from chainlite.functions.math import _log_base

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Log10(_log_base.LogBase):

    _log = numpy.log10
    _inv_ln_base = 1 / math.log(10)


def log10(x: VariableOrArray) -> Variable:
    """Elementwise base-10 logarithm.

    Args:
        x: A float Variable or array (positive values; NumPy's nan/-inf elsewhere).

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.log10(np.array([1.0, 100.0])).array
        array([0., 2.])
    """
    return Log10().apply((x,))[0]
