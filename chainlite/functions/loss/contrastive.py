"""Contrastive loss of pairs: pull similar pairs together, push dissimilar ones apart."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import configuration
from chainlite import function_node
from chainlite.functions import _accumulate
from chainlite.functions.array import broadcast
from chainlite.functions.array import reshape
from chainlite.functions.array import where
from chainlite.functions.math import sqrt
from chainlite.functions.math import sum as sum_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class Contrastive(function_node.FunctionNode):

    def __init__(self, margin: float, reduce: str = 'mean') -> None:
        self.margin = margin
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x0', 'x1', 'y'))
        x0, x1, y = in_types
        type_check.expect(x0.dtype.kind == 'f', x0.dtype == x1.dtype, y.dtype.kind == 'i',
                          x0.ndim == 2, x0.shape == x1.shape, y.ndim == 1,
                          x0.shape[0] == y.shape[0])

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 2))
        x0, x1, y = inputs
        # A GPU's labels are read on the host only in debug mode (as Chainer checks them).
        if (y.__class__ is numpy.ndarray or configuration.config.debug) and y.size and \
                not ((y == 0) | (y == 1)).all():
            raise ValueError('contrastive: each label y must be 0 or 1')
        diff = x0 - x1
        # float16 is summed in float32: a representable loss must not overflow midway.
        dist_sq = _accumulate.wide_sum(diff * diff, axis=1)
        push = numpy.maximum(self.margin - numpy.sqrt(dist_sq), 0)
        loss = numpy.where(y == 1, dist_sq, push * push) * 0.5
        if self.reduce == 'mean':
            xp = backend.get_array_module(x0)
            return xp.asarray(_accumulate.wide_sum(loss) / max(len(loss), 1), x0.dtype),
        return loss.astype(x0.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x0, x1, y = self.get_retained_inputs()
        gy, = grad_outputs
        n = x0.shape[0]
        if self.reduce == 'mean':
            gy = broadcast.broadcast_to(gy * (1.0 / max(n, 1)), (n,))
        diff = x0 - x1
        dist_sq = sum_mod.sum(diff * diff, axis=1)
        # d/d diff of (margin - d)^2 / 2 is (1 - margin / d) diff where 0 < d < margin. Rows
        # that do not use it, and pairs at distance 0 (where the loss has a kink and, as in
        # Chainer, the gradient is 0), take the square root of 1 instead, so that neither
        # the gradient nor its own gradient divides by zero.
        d = dist_sq.array
        pushed = (y.array == 0) & (d > 0) & (d < self.margin * self.margin)
        dist = sqrt.sqrt(where.where(pushed, dist_sq, numpy.ones_like(d)))
        coeff = where.where(pushed, 1.0 - self.margin / dist,
                            (y.array == 1).astype(x0.dtype))
        gx0 = diff * broadcast.broadcast_to(reshape.reshape(gy * coeff, (n, 1)), x0.shape)
        return gx0, -gx0, None


def contrastive(x0: VariableOrArray, x1: VariableOrArray, y: VariableOrArray,
                margin: float = 1, reduce: str = 'mean') -> Variable:
    """Contrastive loss of pairs of vectors.

    With ``d`` the Euclidean distance of a pair, the loss is ``d ** 2 / 2`` for a similar
    pair (``y == 1``) and ``max(margin - d, 0) ** 2 / 2`` for a dissimilar one (``y == 0``).

    Args:
        x0: A float Variable or array, ``(N, K)``.
        x1: A Variable or array of the shape and dtype of ``x0``.
        y: An integer Variable or array of labels 0 or 1, ``(N,)``; it gets no gradient.
        margin: A positive float.
        reduce: ``'mean'`` (the sum divided by ``N``) or ``'no'`` (one loss per pair).

    Returns:
        A Variable of the dtype of ``x0``: a scalar, or ``(N,)`` with ``reduce='no'``.

    Raises:
        ValueError: For a margin that is not positive, an invalid ``reduce``, or a label
            other than 0 and 1.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x0, x1 = np.array([[0.0, 0.0], [0.0, 0.0]]), np.array([[0.6, 0.8], [0.3, 0.4]])
        >>> F.contrastive(x0, x1, np.array([1, 0]), reduce='no').array
        array([0.5  , 0.125])
    """
    if margin <= 0:
        raise ValueError('contrastive: margin must be positive, got %r' % (margin,))
    if reduce not in ('mean', 'no'):
        raise ValueError("contrastive: reduce must be 'mean' or 'no', got %r" % (reduce,))
    return Contrastive(margin, reduce).apply((x0, x1, y))[0]
