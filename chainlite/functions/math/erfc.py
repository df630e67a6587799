"""Elementwise complementary error function."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

import math

from chainlite.functions import _scipy

from chainlite import function_node
from chainlite.functions.math import exp

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable

_MINUS_TWO_OVER_SQRT_PI = -2 / math.sqrt(math.pi)


class Erfc(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return 'erfc'

    _float_inputs = True

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.retain_inputs((0,))
        # SciPy computes float16 in a wider type: cast back.
        return _scipy.special_of(x).erfc(x).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        # d/dx erfc(x) = -2 / sqrt(pi) * exp(-x ** 2).
        return gy * exp.exp(-x * x) * _MINUS_TWO_OVER_SQRT_PI,


def erfc(x: VariableOrArray) -> Variable:
    """Elementwise complementary error function, ``erfc(x) = 1 - erf(x)``.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.erfc(np.array([0.0, 0.5])).array
        array([1.        , 0.47950012])
    """
    return Erfc().apply((x,))[0]
