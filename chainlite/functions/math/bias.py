"""Elementwise sum with a second input broadcast from a given axis (Caffe's Bias)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions import _axis
from chainlite.functions.array import reshape
from chainlite.functions.array import sum_to
from chainlite.functions.math import _caffe_broadcast
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Bias(function_node.FunctionNode):

    def __init__(self, axis: int) -> None:
        self.axis = axis  # non-negative, checked by the wrapper

    _float_inputs = True
    _arg_names = ('x', 'y')

    def check_type_forward(self, in_types: Any) -> None:
        _caffe_broadcast.check_types(in_types, self.axis)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, y = inputs
        return x + y.reshape(_caffe_broadcast.aligned_shape(y.shape, self.axis, x.ndim)),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(gy)
        if 1 in indexes:
            x_ndim = len(in_nodes[0].shape)
            y_shape = in_nodes[1].shape
            g = sum_to.sum_to(gy, _caffe_broadcast.aligned_shape(y_shape, self.axis, x_ndim))
            ret.append(reshape.reshape(g, y_shape))
        return tuple(ret)


def bias(x: VariableOrArray, y: VariableOrArray, axis: int = 1) -> Variable:
    """Elementwise sum of ``x`` and ``y``, with ``y`` broadcast from ``x``'s axis ``axis``.

    ``y``'s axes line up with ``x``'s axes ``axis, axis + 1, ...`` (Caffe's broadcasting, not
    NumPy's, which aligns trailing axes): for ``x`` of shape ``(N, C, H, W)`` and ``axis=1``,
    ``y`` may have shape ``(C,)``, ``(C, H)`` or ``(C, H, W)``.

    Args:
        x: A float Variable or array: the input to be biased.
        y: A Variable or array of the same dtype, whose shape equals
            ``x.shape[axis:axis + y.ndim]``: the bias.
        axis: The first axis of ``x`` along which ``y`` is applied; negative values count
            from the end.

    Returns:
        A Variable of ``x``'s shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.bias(np.zeros((2, 3, 4)), np.array([1.0, 2.0, 3.0]), axis=1).array[0, :, 0]
        array([1., 2., 3.])
    """
    axis = _axis.normalize_axis(axis, x.ndim, 'Bias')
    try:
        return Bias(axis).apply((x, y))[0]
    except type_check.InvalidType as e:
        # Chainer checks the shapes with assertions (in debug mode).
        raise type_check._also(e, AssertionError) from None
