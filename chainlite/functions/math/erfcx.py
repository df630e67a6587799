"""Elementwise scaled complementary error function."""
from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any

import numpy

import math

from chainlite.functions import _scipy

from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable

_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)

#: Whether SciPy, which computes erfcx on the CPU, can be imported (Chainer's flag; chainlite
#: imports SciPy only when the function first runs).
available_cpu = importlib.util.find_spec('scipy') is not None


class Erfcx(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return 'erfcx'

    _float_inputs = True

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        # SciPy computes float16 in a wider type: cast back.
        return _scipy.special_of(x).erfcx(x).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        # d/dx erfcx(x) = 2 * x * erfcx(x) - 2 / sqrt(pi).
        return gy * (x * y * 2 - _TWO_OVER_SQRT_PI),


def erfcx(x: VariableOrArray) -> Variable:
    """Elementwise scaled complementary error function, ``erfcx(x) = exp(x ** 2) * erfc(x)``.

    It stays finite for large ``x``, where ``erfc`` underflows.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.erfcx(np.array([0.0, 0.5])).array
        array([1.        , 0.61569034])
    """
    return Erfcx().apply((x,))[0]
