"""Elementwise arctangent of ``x1 / x2``, in the quadrant of the point ``(x2, x1)``."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions.array import sum_to

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Arctan2(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return 'arctan2'

    _float_inputs = True
    _elementwise = True
    _arg_names = ('x1', 'x2')

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x1, x2 = inputs
        return numpy.arctan2(x1, x2),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        x1, x2 = self.get_retained_inputs()
        gy, = grad_outputs
        # d/dx1 = x2 / r^2 and d/dx2 = -x1 / r^2, with r^2 = x1^2 + x2^2.
        g = gy / (x1 * x1 + x2 * x2)
        ret = []
        if 0 in indexes:
            ret.append(sum_to.sum_to(g * x2, in_nodes[0].shape))
        if 1 in indexes:
            ret.append(sum_to.sum_to(-g * x1, in_nodes[1].shape))
        return tuple(ret)


class Arctan2Grad(function_node.FunctionNode):
    """arctan2's gradient node (Chainer's name): ``Arctan2Grad().apply((x1, x2, gy))`` is
    ``(gy * x2 / r2, -gy * x1 / r2)`` with ``r2 = x1 ** 2 + x2 ** 2``, each summed to its
    input's shape."""

    _float_inputs = True
    _arg_names = ('x1', 'x2', 'gy')

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 2))
        x1, x2, gy = inputs
        g = gy / (x1 * x1 + x2 * x2)
        return (sum_to._sum_to_array(g * x2, x1.shape).astype(x1.dtype, copy=False),
                sum_to._sum_to_array(-g * x1, x2.shape).astype(x2.dtype, copy=False))

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x1, x2, gy = self.get_retained_inputs()
        ggx1, ggx2 = grad_outputs
        r2 = x1 * x1 + x2 * x2
        # The gradient of g1 = gy x2 / r2 and g2 = -gy x1 / r2, weighted by ggx1 and ggx2.
        a = gy / (r2 * r2)
        d1 = d2 = dgy = 0
        if ggx1 is not None:
            d1 = d1 + ggx1 * x1 * x2 * -2 * a
            d2 = d2 + ggx1 * (x1 * x1 - x2 * x2) * a
            dgy = dgy + ggx1 * x2 / r2
        if ggx2 is not None:
            d1 = d1 + ggx2 * (x1 * x1 - x2 * x2) * a
            d2 = d2 + ggx2 * x1 * x2 * 2 * a
            dgy = dgy - ggx2 * x1 / r2
        ret: list[Any] = []
        for i, d in ((0, d1), (1, d2), (2, dgy)):
            if i in indexes:
                shape = (x1, x2, gy)[i].shape
                ret.append(sum_to.sum_to(d, shape) if not isinstance(d, int) else None)
        return tuple(ret)


def arctan2(x1: VariableOrArray, x2: VariableOrArray) -> Variable:
    """Elementwise arctangent of ``x1 / x2`` that takes the signs of both into account.

    The gradient is undefined at the origin, and the result jumps by ``2 pi`` across the
    negative ``x2`` axis. Unlike Chainer, which requires equal shapes, the inputs may
    broadcast against each other by NumPy's rules.

    Args:
        x1: A float Variable or array: the y-coordinates.
        x2: A Variable or array of the same dtype, broadcastable with ``x1``: the
            x-coordinates.

    Returns:
        A Variable of the broadcast shape and the inputs' dtype, with angles in radians in
        ``[-pi, pi]``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.arctan2(np.array([1.0, 1.0]), np.array([1.0, -1.0])).array
        array([0.78539816, 2.35619449])
    """
    return Arctan2().apply((x1, x2))[0]
