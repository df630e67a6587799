"""Sum of elements over given axes."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import _lazy
from chainlite import function_node
from chainlite.functions import _axis
from chainlite.functions.array import broadcast
from chainlite.functions.array import reshape
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable

_F16 = numpy.dtype(numpy.float16)


class Sum(function_node.FunctionNode):

    def __init__(self, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> None:
        self.axis: Any = axis  # normalized by forward to a tuple of ints or None
        self.keepdims = keepdims

    def check_type_forward(self, in_types: Any) -> None:
        # An integer sum would come back as int64 whatever the input's integer dtype.
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.axis = _axis.normalize_axes(self.axis, x.ndim, 'Sum')
        if x.dtype == _F16:
            # Accumulated in float32 so that a representable sum does not overflow midway.
            with numpy.errstate(over='ignore'):  # a total beyond float16 is inf, as before
                return x.sum(axis=self.axis, keepdims=self.keepdims,
                             dtype=numpy.float32).astype(x.dtype),
        return x.sum(axis=self.axis, keepdims=self.keepdims),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        shape = in_nodes[0].shape
        if not self.keepdims and self.axis is not None and len(shape) > 0:
            gy = reshape.reshape(gy, _axis.kept_shape(shape, self.axis))
        return broadcast.broadcast_to(gy, shape),


def sum(x: VariableOrArray, axis: int | Sequence[int] | None = None,
        keepdims: bool = False) -> Variable:
    """Sum of elements over the given axes.

    Args:
        x: A Variable or array.
        axis: None (all axes), an int, or a tuple of ints; negative values count from the end.
        keepdims: Keep the summed axes with length 1.

    Returns:
        A Variable of the same dtype.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> F.sum(np.arange(6.0).reshape(2, 3), axis=1).array
        array([ 3., 12.])
    """
    _axis.check_type(axis, 'sum')
    return Sum(axis, keepdims).apply((x,))[0]


# Chainer's module also has sum_to; chainlite keeps it in its own module (which may import
# this one), imported on first use.
__getattr__, __dir__ = _lazy.attach(
    __name__, {'sum_to': 'chainlite.functions.array.sum_to',
               'SumTo': 'chainlite.functions.array.sum_to'})[:2]
