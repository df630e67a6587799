"""Pad sequences of different lengths into one array."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions.array import get_item
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import ScalarValue, VariableOrArray


class PadSequence(function_node.FunctionNode):

    def __init__(self, length: int | None, padding: ScalarValue) -> None:
        self.length = length
        self.padding = padding

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)
        type_check._argname(in_types, tuple('xs[%d]' % i for i in range(len(in_types))))
        x0 = in_types[0]
        for x in in_types:
            type_check.expect(x.ndim > 0, x.shape[1:] == x0.shape[1:], x.dtype == x0.dtype)
        if self.length is not None:
            length = type_check.make_variable(self.length, 'length')
            for x in in_types:
                type_check.expect(x.shape[0] <= length)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        xp = backend.get_array_module(*inputs)
        length = max([len(x) for x in inputs]) if self.length is None else self.length
        x0 = inputs[0]
        shape = (len(inputs), length) + x0.shape[1:]
        try:
            y = xp.full(shape, self.padding, x0.dtype)
        except OverflowError:
            # NumPy 2 refuses an integer out of the dtype's range (-1 for uint8); Chainer, on
            # NumPy 1, wrapped it around (-1 -> 255), and so does this.
            y = xp.full(shape, xp.asarray(self.padding).astype(x0.dtype), x0.dtype)
        # One copy per sequence, not per element.
        for i, x in enumerate(inputs):
            y[i, :len(x)] = x
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        return tuple([get_item.get_item(gy, (i, slice(0, in_nodes[i].shape[0])))
                      for i in indexes])


def pad_sequence(xs: Sequence[VariableOrArray], length: int | None = None,
                 padding: ScalarValue = 0) -> Variable:
    """Pads sequences of different lengths with a value, into one array.

    Args:
        xs: A list or tuple of Variables or arrays of one dtype, at least 1-d, equal in
            shape but for their first axis (their lengths).
        length: The length of the result's second axis; None for the longest of ``xs``.
            No sequence may be longer.
        padding: The value to fill in after each sequence (cast to the inputs' dtype; an
            integer out of an integer dtype's range wraps around, as NumPy 1 did: -1 in
            uint8 is 255).

    Returns:
        A Variable of shape ``(len(xs), length) + xs[0].shape[1:]``; the padding gets no
        gradient.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.pad_sequence([np.array([1.0, 2.0, 3.0]), np.array([4.0])], padding=-1).array
        array([[ 1.,  2.,  3.],
               [ 4., -1., -1.]])
    """
    return PadSequence(length, padding).apply(tuple(xs))[0]
