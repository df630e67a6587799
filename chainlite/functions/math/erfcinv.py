"""Elementwise inverse complementary error function."""
from __future__ import annotations

import importlib.util
import math
from typing import TYPE_CHECKING, Any

from chainlite.functions.math import _inverse_special
from chainlite.functions.math import exp

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable

_MINUS_HALF_SQRT_PI = -math.sqrt(math.pi) / 2
#: ``sqrt(pi) / 2``, the size of erfcinv's derivative factor (Chainer's name, spelling kept).
BACKWORDC = -_MINUS_HALF_SQRT_PI

#: Whether SciPy, which computes erfcinv on the CPU, can be imported (Chainer's flag; chainlite
#: imports SciPy only when the function first runs).
available_cpu = importlib.util.find_spec('scipy') is not None


class ErfcInv(_inverse_special.InverseSpecial):

    _special = 'erfcinv'

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        # d/dx erfcinv(x) = -sqrt(pi) / 2 * exp(erfcinv(x) ** 2), from the output.
        return gy * exp.exp(y * y) * _MINUS_HALF_SQRT_PI,


def erfcinv(x: VariableOrArray) -> Variable:
    """Elementwise inverse complementary error function, the ``y`` with ``erfc(y) = x``.

    Args:
        x: A float Variable or array, in ``[0, 2]`` (``nan`` outside, ``inf``/``-inf`` at
            the ends).

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.erfcinv(np.array([1.0, 0.5])).array
        array([-0.        ,  0.47693628])
    """
    return ErfcInv().apply((x,))[0]
