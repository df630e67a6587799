"""Negative log-likelihood of binary data under Bernoulli distributions given by logits."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions import _accumulate
from chainlite.functions.activation import tanh
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class BernoulliNLL(function_node.FunctionNode):

    def __init__(self, reduce: str = 'sum') -> None:
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'y'))
        x, y = in_types
        type_check.expect(x.dtype.kind == 'f', x.dtype == y.dtype, x.shape == y.shape)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, y = inputs
        # softplus(y) - x y, with softplus(y) = max(y, 0) + log(1 + exp(-|y|)).
        loss = numpy.maximum(y, 0) + numpy.log1p(numpy.exp(-numpy.abs(y))) - x * y
        xp = backend.get_array_module(x)
        if self.reduce == 'sum':
            return xp.asarray(_accumulate.wide_sum(loss), x.dtype),
        if self.reduce == 'mean':
            return xp.asarray(loss.mean(), x.dtype),
        return loss.astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, y = self.get_retained_inputs()
        gy, = grad_outputs
        if self.reduce == 'mean':
            gy = gy * (1.0 / max(x.size, 1))
        # sigmoid(y) = (1 + tanh(y / 2)) / 2, differentiable to any order.
        sig = tanh.tanh(y * 0.5) * 0.5 + 0.5
        return gy * -y, gy * (sig - x)


def bernoulli_nll(x: VariableOrArray, y: VariableOrArray, reduce: str = 'sum') -> Variable:
    """Negative log-likelihood of ``x`` under Bernoulli distributions with logits ``y``.

    Elementwise, ``-(x log p + (1 - x) log(1 - p))`` with ``p = sigmoid(y)``, computed as
    ``softplus(y) - x * y`` without overflow.

    Args:
        x: A float Variable or array of data, usually 0 or 1.
        y: A Variable or array of the shape and dtype of ``x``: the logits (pre-sigmoid).
        reduce: ``'sum'`` or ``'mean'`` of the elementwise values, or ``'no'``.

    Returns:
        A Variable of the dtype of ``x``: a scalar, or of its shape with ``reduce='no'``.

    Raises:
        ValueError: For an invalid ``reduce``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.bernoulli_nll(np.array([1.0, 0.0]), np.zeros(2), reduce='no').array
        array([0.69314718, 0.69314718])
    """
    if reduce not in ('sum', 'mean', 'no'):
        raise ValueError("bernoulli_nll: reduce must be 'sum', 'mean' or 'no', got %r"
                         % (reduce,))
    return BernoulliNLL(reduce).apply((x, y))[0]
