"""Triplet loss: an anchor nearer to its positive than to its negative, by a margin."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions import _accumulate
from chainlite.functions.array import broadcast
from chainlite.functions.array import reshape
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class Triplet(function_node.FunctionNode):

    def __init__(self, margin: float, reduce: str = 'mean') -> None:
        self.margin = margin
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('anchor', 'positive', 'negative'))
        a, p, n = in_types
        type_check.expect(a.dtype.kind == 'f', a.dtype == p.dtype, a.dtype == n.dtype,
                          a.ndim == 2, a.shape == p.shape, a.shape == n.shape)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 2))
        a, p, n = inputs
        dp, dn = a - p, a - n
        dist = (_accumulate.wide_sum(dp * dp, axis=1) - _accumulate.wide_sum(dn * dn, axis=1)
                + self.margin).astype(a.dtype, copy=False)
        self.active = (dist > 0).astype(a.dtype)
        loss = numpy.maximum(dist, 0)
        if self.reduce == 'mean':
            xp = backend.get_array_module(a)
            return xp.asarray(_accumulate.wide_sum(loss) / max(len(loss), 1), a.dtype),
        return loss.astype(a.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        a, p, n = self.get_retained_inputs()
        gy, = grad_outputs
        rows = a.shape[0]
        coeff = self.active * (2.0 / max(rows, 1) if self.reduce == 'mean' else 2.0)
        g = broadcast.broadcast_to(reshape.reshape(gy * coeff, (rows, 1)), a.shape)
        gp = g * (p - a)
        gn = g * (a - n)
        return -(gp + gn), gp, gn


def triplet(anchor: VariableOrArray, positive: VariableOrArray, negative: VariableOrArray,
            margin: float = 0.2, reduce: str = 'mean') -> Variable:
    """Triplet loss, ``max(|a - p|^2 - |a - n|^2 + margin, 0)`` for each row.

    Args:
        anchor: A float Variable or array, ``(N, K)``.
        positive: A Variable or array of the shape and dtype of ``anchor``.
        negative: A Variable or array of the shape and dtype of ``anchor``.
        margin: A positive float.
        reduce: ``'mean'`` over the rows, or ``'no'`` for one loss per row.

    Returns:
        A Variable of the dtype of ``anchor``: a scalar, or ``(N,)`` with ``reduce='no'``.

    Raises:
        ValueError: For a margin that is not positive or an invalid ``reduce``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> a, p, n = np.zeros((1, 2)), np.array([[1.0, 0.0]]), np.array([[0.5, 0.5]])
        >>> F.triplet(a, p, n, reduce='no').array
        array([0.7])
    """
    if margin <= 0:
        raise ValueError('triplet: margin must be positive, got %r' % (margin,))
    if reduce not in ('mean', 'no'):
        raise ValueError("triplet: reduce must be 'mean' or 'no', got %r" % (reduce,))
    return Triplet(margin, reduce).apply((anchor, positive, negative))[0]
