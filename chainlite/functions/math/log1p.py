"""Elementwise ``log(1 + x)``, accurate near 0."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Log1p(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return 'log1p'

    _float_inputs = True

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return numpy.log1p(x),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return gy / (x + 1),


def log1p(x: VariableOrArray) -> Variable:
    """Elementwise ``log(1 + x)``, computed without the rounding of ``1 + x`` near 0.

    Args:
        x: A float Variable or array (values above -1; NumPy's nan/-inf elsewhere).

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.log1p(np.array([0.0, 1e-10])).array
        array([0.e+00, 1.e-10])
    """
    return Log1p().apply((x,))[0]
