"""Mean of the squared differences of two arrays."""
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


class MeanSquaredError(function_node.FunctionNode):

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x0', 'x1'))
        x0, x1 = in_types
        type_check.expect(x0.dtype.kind == 'f', x0.dtype == x1.dtype, x0.shape == x1.shape)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        # A dot product sums the squares without a temporary array (float16 in float32).
        diff = _accumulate.widen((x0 - x1).ravel())
        xp = backend.get_array_module(x0)
        return xp.asarray(diff.dot(diff) / max(diff.size, 1), x0.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x0, x1 = self.get_retained_inputs()
        gy, = grad_outputs
        gx0 = gy * (x0 - x1) * (2.0 / max(x0.size, 1))
        return gx0, -gx0


def mean_squared_error(x0: VariableOrArray, x1: VariableOrArray) -> Variable:
    """Mean squared error, ``mean((x0 - x1) ** 2)``.

    Args:
        x0: A float Variable or array.
        x1: A Variable or array of the shape and dtype of ``x0``.

    Returns:
        A scalar Variable of the dtype of ``x0``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.mean_squared_error(np.array([1.0, 2.0]), np.array([0.0, 4.0])).array
        array(2.5)
    """
    return MeanSquaredError().apply((x0, x1))[0]
