"""Elementwise sum with a second input broadcast from a given axis (Caffe's Bias)."""
from chainlite import function_node
from chainlite.functions import _axis
from chainlite.functions.array import reshape
from chainlite.functions.array import sum_to
from chainlite.utils import type_check


class Bias(function_node.FunctionNode):

    def __init__(self, axis):
        self.axis = axis  # non-negative, checked by the wrapper

    _float_inputs = True
    _arg_names = ('x', 'y')

    def check_type_forward(self, in_types):
        type_check._argname(in_types, ('x', 'y'))
        x, y = in_types
        axis = self.axis
        type_check.expect(x.dtype == y.dtype, x.ndim >= y.ndim + axis)
        for i in range(type_check.eval(y.ndim)):
            type_check.expect(x.shape[axis + i] == y.shape[i])

    def _y_shape(self, x_ndim, y_shape):
        # y's axes placed from `axis` on, with ones elsewhere: NumPy broadcasting does the rest.
        return (1,) * self.axis + y_shape + (1,) * (x_ndim - self.axis - len(y_shape))

    def forward(self, inputs):
        x, y = inputs
        return x + y.reshape(self._y_shape(x.ndim, y.shape)),

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(gy)
        if 1 in indexes:
            y_shape = self.inputs[1].shape
            g = sum_to.sum_to(gy, self._y_shape(len(self.inputs[0].shape), y_shape))
            ret.append(reshape.reshape(g, y_shape))
        return tuple(ret)


def bias(x, y, axis=1):
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
    return Bias(axis).apply((x, y))[0]
