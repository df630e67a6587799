"""Elementwise hyperbolic cosine."""
import numpy

from chainlite import function_node


class Cosh(function_node.FunctionNode):

    @property
    def label(self):
        return 'cosh'

    _float_inputs = True

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return numpy.cosh(x),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return _CoshGrad().apply((x, gy))


class _CoshGrad(function_node.FunctionNode):
    # gx = gy * sinh(x) in one node: one op per backward step instead of two.

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, gy = inputs
        return gy * numpy.sinh(x),

    def backward(self, indexes, grad_outputs):
        x, gy = self.get_retained_inputs()
        g, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(g * gy * cosh(x))
        if 1 in indexes:
            ret.append(_CoshGrad().apply((x, g))[0])
        return tuple(ret)


def cosh(x):
    """Elementwise hyperbolic cosine.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype, with values of at least 1.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.cosh(np.array([0.0, 1.0])).array
        array([1.        , 1.54308063])
    """
    return Cosh().apply((x,))[0]
