"""Join arrays along an existing axis."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions import _axis
from chainlite.functions.array import split_axis
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _names(in_types):
    return tuple('xs[%d]' % i for i in range(len(in_types)))


class Concat(function_node.FunctionNode):

    def __init__(self, axis: int) -> None:
        self.axis = axis  # non-negative: concat() normalized it

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)
        type_check._argname(in_types, _names(in_types))
        x0 = in_types[0]
        ndim = type_check.eval(x0.ndim)
        for x in in_types[1:]:
            type_check.expect(x.dtype == x0.dtype, x.ndim == x0.ndim)
            for d in range(ndim):
                if d != self.axis:
                    type_check.expect(x.shape[d] == x0.shape[d])

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        xp = backend.get_array_module(*inputs)
        return xp.concatenate(inputs, axis=self.axis),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, = grad_outputs
        nodes = self.inputs
        assert nodes is not None
        if len(nodes) == 1:
            return gy,
        cuts = numpy.cumsum([n.shape[self.axis] for n in nodes[:-1]]).tolist()
        return split_axis.split_axis(gy, cuts, self.axis)


def concat(xs: Sequence[VariableOrArray], axis: int = 1) -> Variable:
    """Concatenates Variables or arrays along an existing axis.

    Args:
        xs: A list or tuple of Variables or arrays of one dtype and ndim, with equal lengths
            on every axis but ``axis``.
        axis: The axis to join along (negative values count from the end).

    Returns:
        A Variable; the gradient of each input is its slice of the output's gradient.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.concat((np.zeros((2, 1)), np.ones((2, 2)))).array
        array([[0., 1., 1.],
               [0., 1., 1.]])
    """
    xs = tuple(xs)
    if xs and hasattr(xs[0], 'ndim'):
        axis = _axis.normalize_axis(axis, xs[0].ndim, 'Concat')
    return Concat(axis).apply(xs)[0]
