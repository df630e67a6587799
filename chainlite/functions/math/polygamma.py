"""Elementwise polygamma function."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite.functions import _scipy

from chainlite import function_node
from chainlite.functions.array import sum_to
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class PolyGamma(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return 'polygamma'

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('n', 'x'))
        n, x = in_types
        type_check.expect(n.dtype.kind == 'i', x.dtype.kind == 'f')
        type_check.expect_broadcast_shapes(n.shape, x.shape)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        n, x = inputs
        self.retain_inputs((0, 1))
        # SciPy computes float16 in a wider type: cast back.
        return _scipy.special_of(n, x).polygamma(n, x).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        n, x = self.get_retained_inputs()
        gy, = grad_outputs
        # The order n is an integer: only x has a gradient, polygamma(n + 1, x).
        return None, sum_to.sum_to(gy * polygamma(n.array + 1, x), x.shape)


def polygamma(n: VariableOrArray, x: VariableOrArray) -> Variable:
    """Elementwise polygamma function, the ``n``-th derivative of the digamma function.

    Args:
        n: An integer Variable or array, the order (``n >= 0``; not differentiable).
        x: A float Variable or array (poles at 0 and the negative integers); broadcast
            with ``n``.

    Returns:
        A Variable of ``x``'s dtype and the broadcast shape.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.polygamma(np.array([0, 1]), np.array([1.0, 1.0])).array
        array([-0.57721566,  1.64493407])
    """
    return PolyGamma().apply((n, x))[0]
