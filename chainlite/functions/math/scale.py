"""Elementwise product with a second input broadcast from a given axis (Caffe's Scale)."""
from chainlite import function_node
from chainlite.functions import _axis
from chainlite.functions.array import reshape
from chainlite.functions.array import sum_to
from chainlite.utils import type_check


class Scale(function_node.FunctionNode):

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
        self.retain_inputs((0, 1))
        x, y = inputs
        return x * y.reshape(self._y_shape(x.ndim, y.shape)),

    def backward(self, indexes, grad_outputs):
        x, y = self.get_retained_inputs()
        gy, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(Scale(self.axis).apply((gy, y))[0])
        if 1 in indexes:
            y_shape = self.inputs[1].shape
            g = sum_to.sum_to(gy * x, self._y_shape(x.ndim, y_shape))
            ret.append(reshape.reshape(g, y_shape))
        return tuple(ret)


def scale(x, y, axis=1):
    """Elementwise product of ``x`` and ``y``, with ``y`` broadcast from ``x``'s axis ``axis``.

    ``y``'s axes line up with ``x``'s axes ``axis, axis + 1, ...`` (Caffe's broadcasting, not
    NumPy's, which aligns trailing axes): for ``x`` of shape ``(N, C, H, W)`` and ``axis=1``,
    ``y`` may have shape ``(C,)``, ``(C, H)`` or ``(C, H, W)``.

    Args:
        x: A float Variable or array: the input to be scaled.
        y: A Variable or array of the same dtype, whose shape equals
            ``x.shape[axis:axis + y.ndim]``: the scale.
        axis: The first axis of ``x`` along which ``y`` is applied; negative values count
            from the end.

    Returns:
        A Variable of ``x``'s shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.scale(np.ones((2, 3, 4)), np.array([1.0, 2.0, 3.0]), axis=1).array[0, :, 0]
        array([1., 2., 3.])
    """
    axis = _axis.normalize_axis(axis, x.ndim, 'Scale')
    return Scale(axis).apply((x, y))[0]
