"""Elementwise log of the standard normal CDF."""
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

_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


class LogNdtr(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return 'log_ndtr'

    _float_inputs = True

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        # SciPy computes float16 in a wider type: cast back.
        return _scipy.special_of(x).log_ndtr(x).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        # d/dx log(ndtr(x)) = exp(-x ** 2 / 2) / sqrt(2 pi) / ndtr(x), written with the
        # output in the exponent so that it stays finite far in the left tail.
        return gy * exp.exp(x * x * -0.5 - y) * _INV_SQRT_2PI,


def log_ndtr(x: VariableOrArray) -> Variable:
    """Elementwise log of the standard normal cumulative distribution function.

    Accurate far in the left tail, where ``log(ndtr(x))`` would underflow.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.log_ndtr(np.array([0.0, -10.0])).array
        array([ -0.69314718, -53.23128515])
    """
    return LogNdtr().apply((x,))[0]
