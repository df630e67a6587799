"""Elementwise inverse error function."""
from __future__ import annotations

import importlib.util
import math
from typing import TYPE_CHECKING, Any

from chainlite.functions.math import _inverse_special
from chainlite.functions.math import exp

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable

_HALF_SQRT_PI = math.sqrt(math.pi) / 2
#: ``sqrt(pi) / 2``, the factor of erfinv's derivative (Chainer's name, spelling kept).
BACKWORDC = _HALF_SQRT_PI

#: Whether SciPy, which computes erfinv on the CPU, can be imported (Chainer's flag; chainlite
#: imports SciPy only when the function first runs).
available_cpu = importlib.util.find_spec('scipy') is not None


class ErfInv(_inverse_special.InverseSpecial):

    _special = 'erfinv'

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        # d/dx erfinv(x) = sqrt(pi) / 2 * exp(erfinv(x) ** 2), from the output.
        return gy * exp.exp(y * y) * _HALF_SQRT_PI,


def erfinv(x: VariableOrArray) -> Variable:
    """Elementwise inverse error function, the ``y`` with ``erf(y) = x``.

    Args:
        x: A float Variable or array, in ``[-1, 1]`` (``nan`` outside, ``-inf``/``inf`` at
            the ends).

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.erfinv(np.array([0.0, 0.5])).array
        array([0.        , 0.47693628])
    """
    return ErfInv().apply((x,))[0]
