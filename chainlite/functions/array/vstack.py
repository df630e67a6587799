"""Join arrays vertically (row wise), as numpy.vstack."""
import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions.array import reshape
from chainlite.functions.array import split_axis
from chainlite.utils import type_check


class Vstack(function_node.FunctionNode):

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() > 0)
        type_check._argname(in_types, tuple('xs[%d]' % i for i in range(len(in_types))))
        x0 = in_types[0]
        ndim = type_check.eval(x0.ndim)
        for x in in_types[1:]:
            type_check.expect(x.dtype == x0.dtype, x.ndim == x0.ndim)
            if ndim <= 1:
                # Each becomes one row: all rows must have the same length.
                type_check.expect(x.shape == x0.shape)
            else:
                for d in range(1, ndim):
                    type_check.expect(x.shape[d] == x0.shape[d])

    def forward(self, inputs):
        xp = backend.get_array_module(*inputs)
        return xp.vstack(inputs),

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        shapes = [n.shape for n in self.inputs]
        if len(shapes) == 1:
            return reshape.reshape(gy, shapes[0]),
        sizes = [s[0] if len(s) >= 2 else 1 for s in shapes[:-1]]
        gxs = split_axis.split_axis(gy, numpy.cumsum(sizes).tolist(), 0)
        return tuple([reshape.reshape(g, s) for g, s in zip(gxs, shapes)])


def vstack(xs):
    """Concatenates Variables or arrays vertically (row wise), as :func:`numpy.vstack`.

    Args:
        xs: A list or tuple of Variables or arrays of one dtype and ndim. With two or more
            axes they join along the first and must agree on every other axis; 0-d and 1-d
            inputs must all have one shape and each becomes a row.

    Returns:
        A Variable: of shape ``(n, N)`` for ``n`` 1-d inputs of length ``N`` (``(n, 1)`` for
        0-d inputs).

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.vstack([np.zeros(3), np.ones(3)]).array
        array([[0., 0., 0.],
               [1., 1., 1.]])
    """
    return Vstack().apply(tuple(xs))[0]
