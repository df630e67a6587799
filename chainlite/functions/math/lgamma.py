"""Elementwise log-gamma function."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite.functions import _scipy

from chainlite import function_node
from chainlite.functions.math import digamma

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class LGamma(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return 'lgamma'

    _float_inputs = True

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.retain_inputs((0,))
        # SciPy computes float16 in a wider type: cast back.
        return _scipy.special_of(x).gammaln(x).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        # d/dx log|Gamma(x)| = digamma(x).
        return gy * digamma.digamma(x),


def lgamma(x: VariableOrArray) -> Variable:
    """Elementwise log of the absolute value of the gamma function, ``log|Gamma(x)|``.

    Args:
        x: A float Variable or array (``inf`` at 0 and the negative integers).

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.lgamma(np.array([1.0, 0.5])).array
        array([0.        , 0.57236494])
    """
    return LGamma().apply((x,))[0]
