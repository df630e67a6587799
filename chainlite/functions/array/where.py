"""Choose elements from two arrays by a boolean condition."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite import variable
from chainlite.functions.array import sum_to
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class Where(function_node.FunctionNode):

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('condition', 'x', 'y'))
        condition, x, y = in_types
        type_check.expect(condition.dtype.kind == 'b', x.dtype == y.dtype)
        type_check.expect_broadcast_shapes(condition.shape, x.shape, y.shape)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        condition, x, y = inputs
        xp = backend.get_array_module(x)
        return xp.where(condition, x, y),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        condition, = self.get_retained_inputs()
        xp = backend.get_array_module(gy)
        zero = xp.zeros((), gy.dtype)
        ret: list[Variable | None] = []
        for i in indexes:
            if i == 0:
                ret.append(None)  # the condition is not differentiable
                continue
            # The gradient goes where its input was chosen, zeros elsewhere.
            pair = (gy, zero) if i == 1 else (zero, gy)
            g, = Where().apply((condition,) + pair)
            ret.append(sum_to.sum_to(g, in_nodes[i].shape))
        return tuple(ret)


def where(condition: VariableOrArray, x: VariableOrArray, y: VariableOrArray) -> Variable:
    """Chooses elements of ``x`` where ``condition`` holds, of ``y`` elsewhere.

    Args:
        condition: A bool array or Variable (used through its array: no gradient flows to
            it).
        x: A Variable or array, chosen where ``condition`` is True.
        y: A Variable or array of the dtype of ``x``, chosen elsewhere.

    The three shapes broadcast against each other, as in :func:`numpy.where`.

    Returns:
        A Variable of the broadcast shape. ``x`` gets the output's gradient where
        ``condition`` is True and zero elsewhere, ``y`` the other way round.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.where(np.array([True, False]), np.array([1.0, 2.0]), np.zeros(2)).array
        array([1., 0.])
    """
    return Where().apply((variable.as_array(condition), x, y))[0]
