"""Squared L2 norm of each example in a batch."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions import _accumulate
from chainlite.functions.array import broadcast
from chainlite.functions.array import reshape
from chainlite.functions.math import sum as sum_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class BatchL2NormSquared(function_node.FunctionNode):

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x, = in_types
        type_check.expect(x.dtype.kind == 'f', x.ndim >= 2)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.retain_inputs((0,))
        return _accumulate.wide_sum(x * x, axis=tuple(range(1, x.ndim))).astype(x.dtype,
                                                                            copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        gy = broadcast.broadcast_to(reshape.reshape(gy, (len(gy),) + (1,) * (x.ndim - 1)),
                                    x.shape)
        return gy * x * 2,


class BatchL2NormSquaredGrad(function_node.FunctionNode):
    """batch_l2_norm_squared's gradient node (Chainer's):
    ``BatchL2NormSquaredGrad().apply((x, gy))`` is ``2 * x * gy``, with ``gy`` (one value
    per example) broadcast over each example's axes."""

    _float_inputs = True
    _arg_names = ('x', 'gy')

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        return (x * 2 * gy.reshape((-1,) + (1,) * (x.ndim - 1))).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, gy = self.get_retained_inputs()
        g, = grad_outputs
        ret = []
        if 0 in indexes:
            gy = broadcast.broadcast_to(
                reshape.reshape(gy, (len(gy),) + (1,) * (x.ndim - 1)), x.shape)
            ret.append(g * gy * 2)
        if 1 in indexes:
            ret.append(sum_mod.sum(g * x * 2, axis=tuple(range(1, x.ndim))))
        return tuple(ret)


def batch_l2_norm_squared(x: VariableOrArray) -> Variable:
    """Squared L2 norm of each example: ``sum(x[i] ** 2)`` over all axes but the first.

    Args:
        x: A float Variable or array of at least 2 dimensions; the first is the batch.

    Returns:
        A 1-D Variable of length ``len(x)``, of the same dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.batch_l2_norm_squared(np.array([[3.0, 4.0], [1.0, 2.0]])).array
        array([25.,  5.])
    """
    return BatchL2NormSquared().apply((x,))[0]
