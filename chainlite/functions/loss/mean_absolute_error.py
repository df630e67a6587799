"""Mean of the absolute differences of two arrays."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions import _accumulate
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _get_intermediate_dtype(dtype: Any) -> Any:
    # The dtype Chainer sums the errors in: float32 for float16 (no overflow), else dtype.
    if dtype == numpy.float16:
        return numpy.float32
    return dtype


class MeanAbsoluteError(function_node.FunctionNode):

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x0', 'x1'))
        x0, x1 = in_types
        type_check.expect(x0.dtype.kind == 'f', x0.dtype == x1.dtype, x0.shape == x1.shape)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x0, x1 = inputs
        diff = x0 - x1
        self.sign = numpy.sign(diff)  # the gradient; constant, so double backprop gives 0
        # float16 is summed in float32 (chainer#6702): 2 ** 16 twos would overflow.
        xp = backend.get_array_module(x0)
        return xp.asarray(_accumulate.wide_sum(numpy.abs(diff)) / max(diff.size, 1),
                          x0.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, = grad_outputs
        gx0 = gy * (self.sign * (1.0 / max(self.sign.size, 1))).astype(gy.dtype, copy=False)
        return gx0, -gx0


def mean_absolute_error(x0: VariableOrArray, x1: VariableOrArray) -> Variable:
    """Mean absolute error, ``mean(|x0 - x1|)``.

    Its gradient at ``x0 == x1`` is taken as 0.

    Args:
        x0: A float Variable or array.
        x1: A Variable or array of the shape and dtype of ``x0``.

    Returns:
        A scalar Variable of the dtype of ``x0``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.mean_absolute_error(np.array([1.0, 2.0]), np.array([0.0, 4.0])).array
        array(1.5)
    """
    return MeanAbsoluteError().apply((x0, x1))[0]
