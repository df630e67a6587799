"""Elementwise base-10 logarithm."""
import math

import numpy

from chainlite import function_node

_INV_LN10 = 1 / math.log(10)


class Log10(function_node.FunctionNode):

    @property
    def label(self):
        return 'log10'

    _float_inputs = True

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return numpy.log10(x),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        # A Python float constant takes the variable's dtype (float16 stays float16).
        return gy / x * _INV_LN10,


def log10(x):
    """Elementwise base-10 logarithm.

    Args:
        x: A float Variable or array (positive values; NumPy's nan/-inf elsewhere).

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.log10(np.array([1.0, 100.0])).array
        array([0., 2.])
    """
    return Log10().apply((x,))[0]
