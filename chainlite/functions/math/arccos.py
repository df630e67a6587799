"""Elementwise inverse cosine."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions.math import arcsin

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Arccos(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return 'arccos'

    _float_inputs = True

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return numpy.arccos(x),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return _ArccosGrad().apply((x, gy))


class _ArccosGrad(arcsin._ArcsinGrad):
    # gx = -gy / sqrt(1 - x^2): arcsin's, negated.

    _negate = True


# Chainer's name for arccos's gradient node, ``ArccosGrad().apply((x, gy))``.
ArccosGrad = _ArccosGrad


def arccos(x: VariableOrArray) -> Variable:
    """Elementwise inverse cosine.

    The gradient is infinite at -1 and 1; outside ``[-1, 1]`` the result is NaN, as in NumPy.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype, with values in ``[0, pi]``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.arccos(np.array([1.0, 0.0])).array
        array([0.        , 1.57079633])
    """
    return Arccos().apply((x,))[0]
