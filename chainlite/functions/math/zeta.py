"""Elementwise Hurwitz zeta function."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite.functions import _scipy

from chainlite import function_node
from chainlite.functions.array import sum_to

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Zeta(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return 'zeta'

    _float_inputs = True
    _elementwise = True
    _arg_names = ('x', 'q')

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, q = inputs
        self.retain_inputs((0, 1))
        # SciPy computes float16 in a wider type: cast back.
        return _scipy.special_of(x, q).zeta(x, q).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, q = self.get_retained_inputs()
        gy, = grad_outputs
        # d/dq zeta(x, q) = -x * zeta(x + 1, q). The derivative in x has no closed form, so x
        # is a constant here (an array, kept out of the graph even in double backprop).
        x = x.array
        return None, sum_to.sum_to(gy * zeta(x + 1, q) * -x, q.shape)


def zeta(x: VariableOrArray, q: VariableOrArray) -> Variable:
    """Elementwise Hurwitz zeta function, ``zeta(x, q) = sum_{k >= 0} (k + q) ** -x``.

    Only ``q`` gets a gradient; ``x`` is treated as a constant (its gradient stays None).

    Args:
        x: A float Variable or array, the exponent (``x > 1`` for a finite value).
        q: A float Variable or array of the same dtype, broadcast with ``x`` (``q > 0``).

    Returns:
        A Variable of the same dtype and the broadcast shape.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.zeta(np.array([2.0, 2.0]), np.array([1.0, 2.0])).array
        array([1.64493407, 0.64493407])
    """
    return Zeta().apply((x, q))[0]
