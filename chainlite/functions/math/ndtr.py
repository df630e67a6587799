"""Elementwise standard normal cumulative distribution function."""
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


def _slow_ndtr_cpu(x: float) -> float:
    # One scalar through math.erfc: Chainer's fallback where SciPy is missing.
    return 0.5 * math.erfc(-x / math.sqrt(2))


class Ndtr(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return 'ndtr'

    _float_inputs = True

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.retain_inputs((0,))
        # SciPy computes float16 in a wider type: cast back.
        return _scipy.special_of(x).ndtr(x).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        # d/dx ndtr(x) is the standard normal density.
        return gy * exp.exp(x * x * -0.5) * _INV_SQRT_2PI,


def ndtr(x: VariableOrArray) -> Variable:
    """Elementwise standard normal cumulative distribution function.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.ndtr(np.array([0.0, 1.0])).array
        array([0.5       , 0.84134475])
    """
    return Ndtr().apply((x,))[0]
