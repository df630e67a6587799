"""Elementwise inverse of the standard normal CDF."""
from __future__ import annotations

import importlib.util
import math
from typing import TYPE_CHECKING, Any

from chainlite.functions.math import _inverse_special
from chainlite.functions.math import exp

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable

_SQRT_2PI = math.sqrt(2 * math.pi)

#: Whether SciPy, which computes ndtri on the CPU, can be imported (Chainer's flag; chainlite
#: imports SciPy only when the function first runs).
available_cpu = importlib.util.find_spec('scipy') is not None


class Ndtri(_inverse_special.InverseSpecial):

    _special = 'ndtri'

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        # d/dx ndtri(x) = 1 / density(ndtri(x)) = sqrt(2 pi) * exp(ndtri(x) ** 2 / 2).
        return gy * exp.exp(y * y * 0.5) * _SQRT_2PI,


def ndtri(x: VariableOrArray) -> Variable:
    """Elementwise inverse of the standard normal cumulative distribution function.

    Args:
        x: A float Variable or array, in ``[0, 1]`` (``nan`` outside, ``-inf``/``inf`` at
            the ends).

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.ndtri(np.array([0.5, 0.975])).array
        array([0.        , 1.95996398])
    """
    return Ndtri().apply((x,))[0]
