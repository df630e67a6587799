"""Join arrays horizontally (column wise), as numpy.hstack."""
import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions.array import reshape
from chainlite.functions.array import split_axis
from chainlite.utils import type_check


class Hstack(function_node.FunctionNode):

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() > 0)
        type_check._argname(in_types, tuple('xs[%d]' % i for i in range(len(in_types))))
        x0 = in_types[0]
        ndim = type_check.eval(x0.ndim)
        for x in in_types[1:]:
            type_check.expect(x.dtype == x0.dtype, x.ndim == x0.ndim)
            if ndim >= 2:
                for d in range(ndim):
                    if d != 1:
                        type_check.expect(x.shape[d] == x0.shape[d])

    def forward(self, inputs):
        xp = backend.get_array_module(*inputs)
        return xp.hstack(inputs),

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        shapes = [n.shape for n in self.inputs]
        ndim = len(shapes[0])
        # 0-d and 1-d inputs are joined along axis 0 (a 0-d one as one element).
        axis = 1 if ndim >= 2 else 0
        if len(shapes) == 1:
            return reshape.reshape(gy, shapes[0]),
        sizes = [s[axis] if ndim else 1 for s in shapes[:-1]]
        gxs = split_axis.split_axis(gy, numpy.cumsum(sizes).tolist(), axis)
        return tuple([reshape.reshape(g, s) for g, s in zip(gxs, shapes)])


def hstack(xs):
    """Concatenates Variables or arrays horizontally (column wise), as :func:`numpy.hstack`.

    Args:
        xs: A list or tuple of Variables or arrays of one dtype and ndim. With two or more
            axes they join along the second and must agree on every other axis; 1-d inputs
            (any lengths) and 0-d inputs join along the first.

    Returns:
        A Variable: of shape ``(N,)`` for 0-d or 1-d inputs, ``N`` being their total size.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.hstack([np.zeros((2, 1)), np.ones((2, 2))]).array
        array([[0., 1., 1.],
               [0., 1., 1.]])
    """
    return Hstack().apply(tuple(xs))[0]
