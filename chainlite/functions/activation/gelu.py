"""Gaussian error linear unit (an addition: not in Chainer 7)."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy

from chainlite.functions import _scipy

from chainlite import function_node
from chainlite.functions.math import exp
from chainlite.functions.math import ndtr

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray

_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


class GELU(function_node.FunctionNode):

    _float_inputs = True
    _arg_names = ('x',)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.retain_inputs((0,))
        # SciPy computes float16 in a wider type: cast back.
        return (x * _scipy.special_of(x).ndtr(x)).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        # d/dx x * Phi(x) = Phi(x) + x * phi(x), built from differentiable functions.
        return gy * (ndtr.ndtr(x) + x * exp.exp(x * x * -0.5) * _INV_SQRT_2PI),


def gelu(x: VariableOrArray) -> Variable:
    """Gaussian error linear unit, ``x * Phi(x)``, with ``Phi`` the standard normal CDF.

    This is the exact (erf) form of Hendrycks and Gimpel (2016),
    ``0.5 * x * (1 + erf(x / sqrt(2)))``, not its tanh approximation. Chainer 7 has no
    ``gelu``: it is an addition of chainlite.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.gelu(np.array([-1.0, 0.0, 1.0])).array
        array([-0.15865525,  0.        ,  0.84134475])
    """
    return GELU().apply((x,))[0]
