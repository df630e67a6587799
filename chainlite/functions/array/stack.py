"""Join arrays of one shape along a new axis."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions import _axis
from chainlite.functions.array import separate
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class Stack(function_node.FunctionNode):

    def __init__(self, axis: int) -> None:
        self.axis = axis  # non-negative: stack() normalized it

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)
        type_check._argname(in_types, tuple('xs[%d]' % i for i in range(len(in_types))))
        x0 = in_types[0]
        for x in in_types[1:]:
            type_check.expect(x.dtype == x0.dtype, x.shape == x0.shape)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        xp = backend.get_array_module(*inputs)
        return xp.stack(inputs, axis=self.axis),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, = grad_outputs
        return separate.separate(gy, self.axis)


def stack(xs: Sequence[VariableOrArray], axis: int = 0) -> Variable:
    """Stacks Variables or arrays of one shape along a new axis.

    Args:
        xs: A list or tuple of Variables or arrays of one shape and dtype.
        axis: Where the new axis goes in the result, ``-x.ndim - 1 <= axis <= x.ndim``
            (negative values count from the end of the result).

    Returns:
        A Variable with one more axis; ``y[..., i, ...]`` (``i`` on ``axis``) is ``xs[i]``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.stack([np.zeros(3), np.ones(3)], axis=1).array
        array([[0., 1.],
               [0., 1.],
               [0., 1.]])
    """
    xs = tuple(xs)
    if xs and hasattr(xs[0], 'ndim'):
        ndim = xs[0].ndim
        if isinstance(axis, (int, numpy.integer)) and not -ndim - 1 <= axis <= ndim:
            # _axis would speak of the result's ndim; say it in terms of the inputs.
            raise type_check.InvalidType(
                '-x.ndim - 1 <= axis <= x.ndim', 'axis %d, x.ndim %d' % (axis, ndim),
                msg='Invalid operation is performed in: Stack (Forward)\n\nExpect: -x.ndim - 1 '
                    '<= axis <= x.ndim\nActual: axis = %d, x.ndim = %d' % (axis, ndim))
        # The axis is one of the result's, which has one axis more than the inputs.
        axis = _axis.normalize_axis(axis, ndim + 1, 'Stack')
    return Stack(axis).apply(xs)[0]
