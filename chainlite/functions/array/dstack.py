"""Join arrays depth wise (along the third axis), as numpy.dstack."""
import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions.array import reshape
from chainlite.functions.array import split_axis
from chainlite.utils import type_check


class Dstack(function_node.FunctionNode):

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() > 0)
        type_check._argname(in_types, tuple('xs[%d]' % i for i in range(len(in_types))))
        x0 = in_types[0]
        ndim = type_check.eval(x0.ndim)
        for x in in_types[1:]:
            type_check.expect(x.dtype == x0.dtype, x.ndim == x0.ndim)
            if ndim <= 2:
                # Each becomes one depth slice: all must have the same shape.
                type_check.expect(x.shape == x0.shape)
            else:
                for d in range(ndim):
                    if d != 2:
                        type_check.expect(x.shape[d] == x0.shape[d])

    def forward(self, inputs):
        xp = backend.get_array_module(*inputs)
        return xp.dstack(inputs),

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        shapes = [n.shape for n in self.inputs]
        if len(shapes) == 1:
            return reshape.reshape(gy, shapes[0]),
        sizes = [s[2] if len(s) >= 3 else 1 for s in shapes[:-1]]
        gxs = split_axis.split_axis(gy, numpy.cumsum(sizes).tolist(), 2)
        return tuple([reshape.reshape(g, s) for g, s in zip(gxs, shapes)])


def dstack(xs):
    """Concatenates Variables or arrays depth wise (along the third axis), as
    :func:`numpy.dstack`.

    Args:
        xs: A list or tuple of Variables or arrays of one dtype and ndim. With three or more
            axes they join along the third and must agree on every other axis; inputs with
            fewer axes must all have one shape.

    Returns:
        A Variable: of shape ``(M, N, n)`` for ``n`` inputs of shape ``(M, N)``,
        ``(1, N, n)`` for shape ``(N,)`` and ``(1, 1, n)`` for 0-d inputs.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.dstack([np.zeros(2), np.ones(2)]).array
        array([[[0., 1.],
                [0., 1.]]])
    """
    return Dstack().apply(tuple(xs))[0]
