"""Elementwise reciprocal square root, ``1 / sqrt(x)``."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Rsqrt(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return 'rsqrt'

    _float_inputs = True

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.retain_outputs((0,))   # d x^(-1/2)/dx = -y^3 / 2: backward needs y, not x
        return 1 / numpy.sqrt(x),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        return _RsqrtGrad().apply((y, gy))


class _RsqrtGrad(function_node.FunctionNode):
    # gx = -gy * y^3 / 2 in one node: one op per backward step instead of four.

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        y, gy = inputs
        return gy * (y * y * y) * -0.5,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        y, gy = self.get_retained_inputs()
        g, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(g * gy * (y * y) * -1.5)
        if 1 in indexes:
            ret.append(_RsqrtGrad().apply((y, g))[0])
        return tuple(ret)


# Chainer's node for rsqrt on a GPU (its CPU path composes 1 / sqrt); chainlite's one node
# serves every array module, so code that builds ``RsqrtGPU()`` gets it.
RsqrtGPU = Rsqrt


def rsqrt(x: VariableOrArray) -> Variable:
    """Elementwise reciprocal square root, ``1 / sqrt(x)``.

    Args:
        x: A float Variable or array (positive values; inf at 0, NaN below, as in NumPy).

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.rsqrt(np.array([4.0, 0.25])).array
        array([0.5, 2. ])
    """
    return Rsqrt().apply((x,))[0]
