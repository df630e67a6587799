"""Elementwise sine."""
import numpy

from chainlite import function_node
from chainlite.functions.math import cos
from chainlite.utils import type_check


class Sin(function_node.FunctionNode):

    @property
    def label(self):
        return 'sin'

    def check_type_forward(self, in_types):
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return numpy.sin(x),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return cos.cos(x) * gy,


def sin(x):
    """Elementwise sine.

    Args:
        x: A float Variable or array (radians).

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> F.sin(np.array([0.0, np.pi / 2])).array
        array([0., 1.])
    """
    return Sin().apply((x,))[0]
