"""Elementwise digamma function."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy
from chainlite.functions import _scipy

from chainlite import backend
from chainlite import function_node
from chainlite.functions.math import polygamma

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable

_ONE = numpy.array(1)


class DiGamma(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return 'digamma'

    _float_inputs = True

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.retain_inputs((0,))
        # SciPy computes float16 in a wider type: cast back.
        return _scipy.special_of(x).digamma(x).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        # d/dx digamma(x) = polygamma(1, x).
        n = backend.get_array_module(x.array).asarray(_ONE)  # on x's device
        return gy * polygamma.polygamma(n, x),


def digamma(x: VariableOrArray) -> Variable:
    """Elementwise digamma function, the derivative of ``log Gamma(x)``.

    Args:
        x: A float Variable or array (poles at 0 and the negative integers).

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.digamma(np.array([1.0, 0.5])).array
        array([-0.57721566, -1.96351003])
    """
    return DiGamma().apply((x,))[0]
