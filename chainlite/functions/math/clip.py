"""Elementwise clipping to an interval."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Clip(function_node.FunctionNode):

    def __init__(self, x_min: float | None, x_max: float | None) -> None:
        if x_min is None and x_max is None:
            raise ValueError('clip: x_min and x_max cannot both be None')
        if x_min is not None and x_max is not None and not x_min < x_max:
            raise ValueError('clip: x_min must be less than x_max, got x_min=%r, x_max=%r'
                             % (x_min, x_max))
        self.x_min = x_min
        self.x_max = x_max

    _float_inputs = True
    _arg_names = ('x',)

    def _bounds(self, dtype):
        # In the input's dtype: a float64 NumPy scalar bound would promote float32 to float64.
        # A bound beyond the dtype's range becomes +-inf, which clips nothing, as it should.
        lo, hi = self.x_min, self.x_max
        with numpy.errstate(over='ignore'):
            return ((None if lo is None else dtype.type(lo)),
                    (None if hi is None else dtype.type(hi)))

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        x, = inputs
        lo, hi = self._bounds(x.dtype)
        return numpy.clip(x, lo, hi),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        x = x.array
        lo, hi = self._bounds(x.dtype)
        # Gradient 1 on the closed interval (the edges included, as in Chainer), 0 outside:
        # a constant mask keeps double backprop exact.
        inside = (x >= lo) if hi is None else (x <= hi) if lo is None else (x >= lo) & (x <= hi)
        return gy * inside.astype(x.dtype),


class ClipGrad(function_node.FunctionNode):
    """clip's gradient node (Chainer's): ``ClipGrad(x, x_min, x_max).apply((gy,))`` passes
    ``gy`` where ``x_min <= x <= x_max`` (edges included) and 0 elsewhere; ``x`` is the
    forward's input array, either bound may be None but not both."""

    _float_inputs = True
    _arg_names = ('gy',)

    def __init__(self, x: numpy.ndarray, x_min: float | None, x_max: float | None) -> None:
        if x_min is None and x_max is None:
            raise ValueError('ClipGrad: x_min and x_max cannot both be None')
        cond = backend.get_array_module(x).ones(x.shape, bool)
        if x_min is not None:
            cond &= x_min <= x
        if x_max is not None:
            cond &= x <= x_max
        self.cond = cond

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        gy, = inputs
        return gy * self.cond.astype(gy.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        g, = grad_outputs
        return g * self.cond.astype(g.dtype),


def clip(x: VariableOrArray, x_min: float | None, x_max: float | None) -> Variable:
    """Clips the elements of ``x`` to the interval ``[x_min, x_max]``.

    The gradient is 1 inside the interval, edges included, and 0 outside.

    Args:
        x: A float Variable or array.
        x_min: The lower bound (a scalar), or None for no lower bound.
        x_max: The upper bound (a scalar), or None for no upper bound; not both None, and
            ``x_min < x_max`` when both are given.

    Returns:
        A Variable of the same shape and dtype.

    Raises:
        ValueError: If both bounds are None or ``x_min >= x_max``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.clip(np.array([-2.0, 0.5, 3.0]), -1.0, 1.0).array
        array([-1. ,  0.5,  1. ])
    """
    return Clip(x_min, x_max).apply((x,))[0]
