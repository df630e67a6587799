"""Elementwise square."""
from chainlite import function_node


class Square(function_node.FunctionNode):

    @property
    def label(self):
        return 'square'

    _float_inputs = True

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return x * x,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return gy * (x * 2),


def square(x):
    """Elementwise square, ``x * x``.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.square(np.array([-3.0, 0.5])).array
        array([9.  , 0.25])
    """
    return Square().apply((x,))[0]
