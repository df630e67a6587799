"""Elementwise base-2 logarithm."""
import math

import numpy

from chainlite import function_node

_INV_LN2 = 1 / math.log(2)


class Log2(function_node.FunctionNode):

    @property
    def label(self):
        return 'log2'

    _float_inputs = True

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return numpy.log2(x),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        # A Python float constant takes the variable's dtype (float16 stays float16).
        return gy / x * _INV_LN2,


def log2(x):
    """Elementwise base-2 logarithm.

    Args:
        x: A float Variable or array (positive values; NumPy's nan/-inf elsewhere).

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.log2(np.array([1.0, 8.0])).array
        array([0., 3.])
    """
    return Log2().apply((x,))[0]
