"""What hstack, vstack and dstack share: NumPy's join of inputs raised to a least ndim."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions.array import reshape
from chainlite.functions.array import split_axis
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable


class Join(function_node.FunctionNode):
    """Joins inputs, each raised to ``_min_ndim`` axes, along ``_axis``, as the NumPy function
    ``_name`` does; subclasses set the three."""

    _name: str
    _min_ndim: int
    _axis: int

    def _join_axis(self, ndim: int) -> int:
        # hstack joins 0-d and 1-d inputs along their only (or their one added) axis.
        return min(self._axis, max(ndim, self._min_ndim) - 1)

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)
        type_check._argname(in_types, tuple('xs[%d]' % i for i in range(len(in_types))))
        x0 = in_types[0]
        ndim = type_check.eval(x0.ndim)
        axis = self._join_axis(ndim)
        for x in in_types[1:]:
            type_check.expect(x.dtype == x0.dtype, x.ndim == x0.ndim)
            if ndim < self._min_ndim:
                # Each becomes one row or slice: all must have the same shape.
                type_check.expect(x.shape == x0.shape)
            else:
                for d in range(ndim):
                    if d != axis:
                        type_check.expect(x.shape[d] == x0.shape[d])

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        xp = backend.get_array_module(*inputs)
        return getattr(xp, self._name)(inputs),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        shapes = [n.shape for n in in_nodes]
        if len(shapes) == 1:
            return reshape.reshape(gy, shapes[0]),
        axis = self._join_axis(len(shapes[0]))
        # An input raised to more axes has length 1 along the join.
        sizes = [s[axis] if len(s) >= self._min_ndim else 1 for s in shapes[:-1]]
        gxs = split_axis.split_axis(gy, numpy.cumsum(sizes).tolist(), axis)
        return tuple([reshape.reshape(g, s) for g, s in zip(gxs, shapes)])
