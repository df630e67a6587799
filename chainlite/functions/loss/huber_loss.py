"""Huber loss: squared near the target, linear far from it."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions import _accumulate
from chainlite.functions.array import broadcast
from chainlite.functions.array import reshape
from chainlite.functions.math import clip
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class HuberLoss(function_node.FunctionNode):

    def __init__(self, delta: float, reduce: str = 'sum_along_second_axis') -> None:
        self.delta = delta
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 't'))
        x, t = in_types
        type_check.expect(x.dtype.kind == 'f', x.dtype == t.dtype, x.shape == t.shape)
        if self.reduce == 'sum_along_second_axis':
            type_check.expect(x.ndim >= 2)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, t = inputs
        delta = x.dtype.type(self.delta)
        diff = x - t
        a = numpy.abs(diff)
        # 0.5 a^2 where a <= delta, else delta (a - delta / 2).
        y = numpy.where(a <= delta, 0.5 * diff * diff, delta * (a - 0.5 * delta))
        if self.reduce == 'sum_along_second_axis':
            y = _accumulate.wide_sum(y, axis=1)
        return y.astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, t = self.get_retained_inputs()
        gy, = grad_outputs
        if self.reduce == 'sum_along_second_axis':
            shape = list(x.shape)
            shape[1] = 1
            gy = broadcast.broadcast_to(reshape.reshape(gy, tuple(shape)), x.shape)
        delta = float(self.delta)
        gx = gy * clip.clip(x - t, -delta, delta)
        return gx, -gx


def huber_loss(x: VariableOrArray, t: VariableOrArray, delta: float,
               reduce: str = 'sum_along_second_axis') -> Variable:
    """Huber loss, less sensitive to outliers than the squared error.

    With ``a = x - t``, the loss of one element is ``a ** 2 / 2`` where ``|a| <= delta``
    and ``delta * (|a| - delta / 2)`` elsewhere.

    Args:
        x: A float Variable or array, ``(N, K, ...)``.
        t: A Variable or array of the shape and dtype of ``x`` (also differentiated).
        delta: The positive threshold between the two pieces.
        reduce: ``'sum_along_second_axis'`` sums the losses over axis 1; ``'no'`` keeps
            them elementwise.

    Returns:
        A Variable of the dtype of ``x``, of the shape of ``x`` without axis 1 (or of
        ``x``'s shape with ``reduce='no'``).

    Raises:
        ValueError: For an invalid ``reduce``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.huber_loss(np.array([[0.5, 3.0]]), np.zeros((1, 2)), 1.0, reduce='no').array
        array([[0.125, 2.5  ]])
    """
    if reduce not in ('sum_along_second_axis', 'no'):
        raise ValueError("huber_loss: reduce must be 'sum_along_second_axis' or 'no', got %r"
                         % (reduce,))
    return HuberLoss(delta, reduce).apply((x, t))[0]
