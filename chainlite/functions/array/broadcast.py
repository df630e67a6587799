"""Broadcast an array to a shape (a read-only view, as NumPy gives)."""
import numpy

from chainlite import function_node
from chainlite import variable
from chainlite.functions.array import sum_to
from chainlite.utils import type_check


class BroadcastTo(function_node.FunctionNode):

    def __init__(self, shape):
        self._shape = shape

    def check_type_forward(self, in_types):
        type_check._argname(in_types, ('x',))
        x, = in_types
        ndim = len(self._shape)
        type_check.expect(x.ndim <= ndim)
        for i in range(-1, -ndim - 1, -1):
            if i < -len(type_check.eval(x.shape)):
                break
            type_check.expect((x.shape[i] == 1) | (x.shape[i] == self._shape[i]))

    def forward(self, inputs):
        x, = inputs
        return numpy.broadcast_to(x, self._shape),

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        return sum_to.sum_to(gy, self.inputs[0].shape),


def broadcast_to(x, shape):
    """Broadcasts ``x`` to ``shape`` by NumPy's rules.

    Args:
        x: A Variable or array.
        shape: The target shape.

    Returns:
        A Variable; its gradient sums over the broadcast axes.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> F.broadcast_to(np.array([1.0, 2.0]), (2, 2)).array
        array([[1., 2.],
               [1., 2.]])
    """
    shape = tuple(shape)
    if getattr(x, 'shape', None) == shape:
        return variable.as_variable(x)
    return BroadcastTo(shape).apply((x,))[0]
