"""Indexing and slicing, with NumPy's basic and advanced indexes."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite import variable
from chainlite.backends import cuda
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _normalize(slices):
    # Variables and sequences become arrays; a lone index becomes a 1-tuple.
    if not isinstance(slices, tuple):
        slices = (slices,)
    out = []
    for s in slices:
        if isinstance(s, variable.Variable):
            s = s.array
        elif isinstance(s, (list, tuple)):
            # NumPy reads a tuple inside the index as an integer array too (missing it would
            # hide repeated entries from backward), and an empty sequence as an empty one.
            s = numpy.asarray(s)
            if s.size == 0 and s.dtype.kind == 'f':
                s = s.astype(numpy.intp)
        out.append(s)
    return tuple(out)


def _has_repeats(slices):
    # Integer-array indexes may hit one element several times: gradients must add up.
    return any((isinstance(s, numpy.ndarray) or cuda.is_gpu_array(s)) and s.dtype.kind in 'iu'
               for s in slices)


def _on_device(slices, x):
    # The index arrays (lists and NumPy arrays made on the host) on a GPU array x's device.
    xp = backend.get_array_module(x)
    if xp is numpy:
        return slices
    return tuple([xp.asarray(s) if isinstance(s, numpy.ndarray) else s for s in slices])


class GetItem(function_node.FunctionNode):

    def __init__(self, slices: Any) -> None:
        self.slices = slices

    @property
    def label(self) -> str:
        return 'GetItem'

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        if x.__class__ is not numpy.ndarray:
            self.slices = _on_device(self.slices, x)
        try:
            return x[self.slices],
        except IndexError as e:
            raise _index_error('get_item', e, 'x', x.shape, self.slices) from None

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        return _GetItemGrad(self.slices, in_nodes[0].shape).apply((gy,))


def _index_error(name: str, e: IndexError, arg: str, shape: tuple, slices: Any) -> BaseException:
    # NumPy's IndexError with the function, shape and index named; two ellipses are also a
    # ValueError, Chainer's type for them.
    error = IndexError('%s: %s (%s.shape = %s, index = %s)' % (name, e, arg, shape, slices))
    if isinstance(slices, tuple) and sum(s is Ellipsis for s in slices) > 1:
        return type_check._also(error, ValueError)
    return error


class _GetItemGrad(function_node.FunctionNode):
    # Scatters gy into zeros of the input's shape; its own gradient is get_item again.

    def __init__(self, slices, in_shape):
        self.slices = slices
        self._in_shape = in_shape

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        gy, = inputs
        if gy.__class__ is not numpy.ndarray:
            self.slices = _on_device(self.slices, gy)
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self._in_shape, gy.dtype)
        if _has_repeats(self.slices):
            xp.add.at(gx, self.slices, gy)
        else:
            gx[self.slices] = gy
        return gx,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        ggx, = grad_outputs
        return GetItem(self.slices).apply((ggx,))


class GetItemGrad(_GetItemGrad):
    """get_item's gradient node (Chainer's): ``GetItemGrad(slices, in_shape).apply((gy,))``
    scatters ``gy`` into zeros of ``in_shape`` at ``slices``, adding where an integer array
    selects an element several times."""

    def __init__(self, slices: Any, in_shape: tuple[int, ...]) -> None:
        super().__init__(_normalize(slices), in_shape)


def install_variable_get_item() -> None:
    """Makes ``Variable.__getitem__`` (``x[slices]``) call :func:`get_item`, as Chainer does
    on import (chainlite's Variable does so already; calling this again changes nothing).

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite.functions.array import get_item
        >>> get_item.install_variable_get_item()
        >>> chainlite.Variable(np.arange(3.0))[1].array
        array(1.)
    """
    setattr(variable.Variable, '__getitem__', get_item)


def get_item(x: VariableOrArray, slices: Any) -> Variable:
    """Extracts elements by a NumPy index: ints, slices, None, Ellipsis, int or bool arrays.

    Args:
        x: A Variable or array.
        slices: Any NumPy index (a Variable index is used through its array). An element
            selected several times by an integer array gets the sum of its gradients.

    Returns:
        A Variable (a view where NumPy gives a view).

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> F.get_item(np.arange(6.0).reshape(2, 3), (slice(None), 1)).array
        array([1., 4.])
    """
    return GetItem(_normalize(slices)).apply((x,))[0]
