"""Index of the maximum over an axis (not differentiable)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite import variable
from chainlite.functions import _axis
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def _select_index(x, axis, label, method):
    # Shared by argmax and argmin: validate, then call the array method named `method`.
    a = variable.as_array(x)
    if not variable._is_array(a) or a.dtype.kind != 'f':
        kind = getattr(getattr(a, 'dtype', None), 'kind', type(a).__name__)
        raise type_check.InvalidType(
            'x.dtype.kind == f', '%s != f' % kind,
            msg='Invalid operation is performed in: %s (Forward)\n\n'
                'Expect: x.dtype.kind == f\nActual: %s != f' % (label, kind))
    if isinstance(axis, (tuple, list)):
        raise TypeError('%s: axis must be None or an int, got %r' % (label, axis))
    axis = _axis.normalize_axis(axis, a.ndim, label)
    # As Chainer, indices are int32; NumPy returns a scalar for a full reduction.
    xp = backend.get_array_module(a)
    y = xp.asarray(getattr(a, method)(axis=axis)).astype(numpy.int32)
    return variable.Variable(y, requires_grad=False)


class IndexSelectorBase(function_node.FunctionNode):
    """The base of ArgMax and ArgMin (Chainer's nodes): the int32 index that the subclass's
    ``_fwd(x, xp)`` selects along ``axis`` (None: into the flattened array); no gradient.

    Args:
        axis: None or an int.
    """

    def __init__(self, axis: int | None = None) -> None:
        if axis is not None and not isinstance(axis, (int, numpy.integer)):
            raise TypeError('%s: axis must be None or an int, got %r'
                            % (type(self).__name__, axis))
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')
        if self.axis is not None:
            type_check.expect(-in_types[0].ndim <= self.axis, self.axis < in_types[0].ndim)

    def _fwd(self, x: Any, xp: Any) -> Any:
        raise TypeError('%s is a base class: a subclass defines _fwd(x, xp), the index it '
                        'selects along self.axis' % type(self).__name__)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        # (A NumPy scalar, for a full reduction on the CPU, becomes a 0-d array in apply.)
        return self._fwd(x, backend.get_array_module(x)),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return None,  # an index is piecewise constant: no gradient


class ArgMax(IndexSelectorBase):
    """argmax as a node (Chainer's): ``ArgMax(axis).apply((x,))``."""

    def _fwd(self, x, xp):
        return x.argmax(axis=self.axis).astype(numpy.int32)


def argmax(x: VariableOrArray, axis: int | None = None) -> Variable:
    """Index of the maximum element along an axis.

    The result is an integer index with no gradient, so, as in Chainer, it has no creator
    and ``requires_grad=False``. The first occurrence wins in a tie.

    Args:
        x: A float Variable or array.
        axis: None (the index into the flattened array) or an int.

    Returns:
        An int32 Variable, outside the graph.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.argmax(np.array([[1.0, 5.0, 2.0], [4.0, 0.0, 3.0]]), axis=1).array
        array([1, 0], dtype=int32)
    """
    return _select_index(x, axis, 'argmax', 'argmax')
