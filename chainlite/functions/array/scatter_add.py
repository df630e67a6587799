"""Add values to the elements of an array that an index selects."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.backends import cuda
from chainlite.functions.array import get_item
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _host_index(s):
    # A GPU index array as a host one of the same selection shape: an integer array's shape
    # is enough (zeros), a boolean array's selection depends on its values (copied, as CuPy
    # itself synchronizes to index with one).
    if not cuda.is_gpu_array(s):
        return s
    return s.get() if s.dtype.kind == 'b' else numpy.zeros(s.shape, numpy.intp)


def _selected_shape(shape, slices):
    # The shape of a[slices], found on a zero-stride dummy: no copy of a is made.
    if isinstance(slices, tuple):
        slices = tuple([_host_index(s) for s in slices])
    else:
        slices = _host_index(slices)
    try:
        return numpy.broadcast_to(numpy.zeros((), numpy.int8), shape)[slices].shape
    except IndexError as e:
        error = get_item._index_error('scatter_add', e, 'a', shape, slices)
        if 'too many indices' in str(e):
            # Chainer's type check raises InvalidType here; it stays an IndexError.
            n = len(slices) if isinstance(slices, tuple) else 1
            error = type_check._also(type_check.InvalidType(
                'len(index) <= a.ndim', '%d > %d' % (n, len(shape)), msg=str(error)), IndexError)
        raise error from None


class ScatterAdd(function_node.FunctionNode):

    def __init__(self, slices: Any) -> None:
        self.slices = slices

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('a', 'b'))
        a, b = in_types
        # No broadcasting: b must have the shape of a[slices].
        selected = _selected_shape(type_check.eval(a.shape), self.slices)
        if isinstance(a, type_check.Expr):  # named in the message only when one is shown
            selected = type_check.make_variable(selected, 'a[slices].shape')
        type_check.expect(b.dtype == a.dtype)
        try:
            type_check.expect(b.shape == selected)
        except type_check.InvalidType as e:
            raise type_check._also(e, ValueError) from None  # Chainer's type: no broadcasting

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        a, b = inputs
        if a.__class__ is not numpy.ndarray:
            self.slices = get_item._on_device(self.slices, a)
        y = a.copy()
        if get_item._has_repeats(self.slices):
            # An element selected several times must get every value added.
            backend.get_array_module(a).add.at(y, self.slices, b)
        else:
            y[self.slices] += b
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(gy)
        if 1 in indexes:
            ret.append(get_item.get_item(gy, self.slices))
        return tuple(ret)


def scatter_add(a: VariableOrArray, slices: Any, b: VariableOrArray) -> Variable:
    """Returns a copy of ``a`` with ``b`` added to the elements ``a[slices]`` selects.

    ``a`` itself is not changed. An element that an integer array index selects several times
    gets all the values added, as with :func:`numpy.add.at`.

    Args:
        a: A Variable or array.
        slices: Any NumPy index: ints, slices, None, Ellipsis, int or bool arrays, lists, or a
            tuple of them (a Variable index is used through its array).
        b: A Variable or array of the dtype of ``a`` and the shape of ``a[slices]`` (it is not
            broadcast).

    Returns:
        A Variable of the shape and dtype of ``a``. The gradient of ``a`` is the output's
        gradient; that of ``b`` is the output's gradient at ``slices``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.scatter_add(np.zeros(3), np.array([0, 0, 2]), np.array([1.0, 2.0, 3.0])).array
        array([3., 0., 3.])
    """
    return ScatterAdd(get_item._normalize(slices)).apply((a, b))[0]
