"""Maximum of array elements over given axes."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions import _axis
from chainlite.functions.array import broadcast
from chainlite.functions.array import reshape
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class SelectorBase(function_node.FunctionNode):
    """The base of Max and Min (Chainer's): reduces ``x`` over ``axis`` with the subclass's
    ``_fwd(x, xp)``, and sends the gradient to every element equal to the result."""

    def __init__(self, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> None:
        self.axis: Any = axis  # normalized by forward to a tuple of ints or None
        self.keepdims = keepdims

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def _fwd(self, x: Any, xp: Any) -> Any:
        raise TypeError('%s is a base class: a subclass defines _fwd(x, xp), the reduction '
                        'of x over self.axis' % type(self).__name__)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.axis = _axis.normalize_axes(self.axis, x.ndim, self.label)
        axes = range(x.ndim) if self.axis is None else self.axis
        if any(x.shape[a] == 0 for a in axes):
            raise ValueError('%s: cannot reduce over an empty axis: x has shape %s and axis=%r '
                             '(the result would have no value)'
                             % (type(self).__name__.lower(), x.shape, self.axis))
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        # (A NumPy scalar, for a full reduction on the CPU, becomes a 0-d array in apply.)
        return self._fwd(x, backend.get_array_module(x)),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        shape = x.shape
        kept = _axis.kept_shape(shape, self.axis)
        # The selected elements form a piecewise-constant mask: as Chainer, every element
        # equal to the result (all of them, in a tie) receives the whole gradient.
        mask = (x.array == y.array.reshape(kept)).astype(x.dtype)
        return broadcast.broadcast_to(reshape.reshape(gy, kept), shape) * mask,


class Max(SelectorBase):

    def _fwd(self, x, xp):
        return x.max(axis=self.axis, keepdims=self.keepdims)


def max(x: VariableOrArray, axis: int | Sequence[int] | None = None,
        keepdims: bool = False) -> Variable:
    """Maximum of array elements over the given axes.

    The gradient flows to the elements equal to the maximum; in a tie, each of them receives
    the whole output gradient (as in Chainer).

    Args:
        x: A float Variable or array.
        axis: None (all axes), an int, or a tuple of ints; negative values count from the end.
        keepdims: Keep the reduced axes with length 1.

    Returns:
        A Variable of the same dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.max(np.array([[1.0, 5.0, 2.0], [4.0, 0.0, 3.0]]), axis=1).array
        array([5., 4.])
    """
    _axis.check_type(axis, 'max')
    return Max(axis, keepdims).apply((x,))[0]
