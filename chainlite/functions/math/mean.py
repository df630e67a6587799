"""Arithmetic mean of elements over given axes."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import function_node
from chainlite.functions import _axis
from chainlite.functions.array import broadcast
from chainlite.functions.array import reshape
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Mean(function_node.FunctionNode):

    def __init__(self, axis: int | Sequence[int] | None = None, keepdims: bool = False,
                 label: str = 'Mean') -> None:
        self.axis: Any = axis  # normalized by forward to a tuple of ints or None
        self.keepdims = keepdims
        self._label = label

    @property
    def label(self) -> str:
        return self._label

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.axis = _axis.normalize_axes(self.axis, x.ndim, self.label)
        # NumPy accumulates float16 in float32 but may hand back a wider type for 0-d input.
        return x.mean(axis=self.axis, keepdims=self.keepdims).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        shape = in_nodes[0].shape
        n = 1
        kept = list(shape)
        for i, s in enumerate(shape):
            if self.axis is None or i in self.axis:
                n *= s
                kept[i] = 1
        if not self.keepdims:
            gy = reshape.reshape(gy, tuple(kept))
        return broadcast.broadcast_to(gy, shape) * (1.0 / max(n, 1)),


def mean(x: VariableOrArray, axis: int | Sequence[int] | None = None,
         weights: VariableOrArray | None = None, keepdims: bool = False) -> Variable:
    """Arithmetic mean of elements over the given axes.

    Chainer keeps this function private (``average`` without weights); chainlite exposes it.

    Args:
        x: A float Variable or array.
        axis: None (all axes), an int, or a tuple of ints; negative values count from the end.
        weights: None, or weights as in :func:`~chainlite.functions.math.average.average`.
        keepdims: Keep the reduced axes with length 1.

    Returns:
        A Variable of the same dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.mean(np.array([[1.0, 2.0], [3.0, 6.0]]), axis=0).array
        array([2., 4.])
    """
    if weights is not None:
        from chainlite.functions.math import average  # average builds on this module
        return average.average(x, axis, weights, keepdims)
    return Mean(axis, keepdims).apply((x,))[0]
