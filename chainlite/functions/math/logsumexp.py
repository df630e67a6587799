"""Log of the sum of exponentials over given axes."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import function_node
from chainlite.functions import _accumulate
from chainlite.functions import _axis
from chainlite.functions.array import broadcast
from chainlite.functions.array import reshape
from chainlite.functions.math import exp
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class LogSumExp(function_node.FunctionNode):

    def __init__(self, axis: int | Sequence[int] | None = None) -> None:
        self.axis: Any = axis  # normalized by forward to a tuple of ints or None

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.axis = _axis.normalize_axes(self.axis, x.ndim, self.label)
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        # Shifted by the maximum, so exp neither overflows nor underflows to an all-zero sum.
        m = x.max(axis=self.axis, keepdims=True)
        s = _accumulate.wide_sum(numpy.exp(x - m), axis=self.axis, keepdims=True)
        y = m + numpy.log(s).astype(x.dtype, copy=False)
        return y.reshape(_reduced_shape(x.shape, self.axis)),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        kept = _axis.kept_shape(x.shape, self.axis)
        # d/dx logsumexp(x) = softmax(x) = exp(x - y).
        y = broadcast.broadcast_to(reshape.reshape(y, kept), x.shape)
        gy = broadcast.broadcast_to(reshape.reshape(gy, kept), x.shape)
        return gy * exp.exp(x - y),


def _reduced_shape(shape, axis):
    return () if axis is None else tuple(s for i, s in enumerate(shape) if i not in axis)


def logsumexp(x: VariableOrArray, axis: int | Sequence[int] | None = None) -> Variable:
    """Log of the sum of exponentials, ``log(sum(exp(x), axis))``, computed stably.

    Args:
        x: A float Variable or array.
        axis: None (all axes), an int, or a tuple of ints; negative values count from the end.

    Returns:
        A Variable of the same dtype, with the reduced axes removed.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.logsumexp(np.log(np.array([[1.0, 3.0], [2.0, 2.0]])), axis=1).array
        array([1.38629436, 1.38629436])
    """
    _axis.check_type(axis, 'logsumexp')
    return LogSumExp(axis).apply((x,))[0]
