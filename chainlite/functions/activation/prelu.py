"""Parametric rectified linear unit."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions.array import reshape
from chainlite.functions.array import sum_to
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _extended_shape(W, x):
    # W's axes line up with x's axes 1, 2, ...; the batch axis and the rest broadcast.
    return (1,) + W.shape + (1,) * (x.ndim - W.ndim - 1)


class PReLUFunction(function_node.FunctionNode):

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'W'))
        x, W = in_types
        type_check.expect(x.dtype.kind == 'f', W.dtype == x.dtype, x.ndim >= W.ndim + 1)
        type_check.expect(x.shape[1:1 + type_check.eval(W.ndim)] == W.shape)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, W = inputs
        self.retain_inputs((0, 1))
        return numpy.where(x > 0, x, x * W.reshape(_extended_shape(W, x))),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        ext = _extended_shape(W, x)
        # Which side of 0 each element is on is piecewise constant: constant masks keep
        # double backprop exact.
        neg = (x.array <= 0).astype(x.dtype)
        ret = []
        if 0 in indexes:
            # 1 where x > 0, W where x <= 0.
            ret.append(gy * (reshape.reshape(W, ext) * neg + (1 - neg)))
        if 1 in indexes:
            ret.append(reshape.reshape(sum_to.sum_to(gy * x * neg, ext), W.shape))
        return tuple(ret)


def prelu(x: VariableOrArray, W: VariableOrArray) -> Variable:
    """Parametric rectified linear unit: ``x`` where ``x > 0``, ``W * x`` elsewhere.

    ``W`` is shared along the batch axis and the trailing axes: with ``W`` of shape
    ``(s_1, ..., s_M)``, ``x`` must have shape ``(B, s_1, ..., s_M, ...)`` (for images,
    ``W`` of shape ``(C,)`` gives one slope per channel).

    Args:
        x: A float Variable or array; the first axis is the batch axis.
        W: A Variable or array of ``x``'s dtype: the slopes for negative inputs.

    Returns:
        A Variable of the shape and dtype of ``x``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.prelu(np.array([[-2.0, -2.0, 3.0]]), np.array([0.5, 0.1, 0.5])).array
        array([[-1. , -0.2,  3. ]])
    """
    return PReLUFunction().apply((x, W))[0]
