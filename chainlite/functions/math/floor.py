"""Elementwise floor (not differentiable)."""
import numpy

from chainlite import variable
from chainlite.utils import type_check


def floor(x):
    """Elementwise floor, the largest integer not greater than each element.

    Its gradient is zero almost everywhere, so, as in Chainer, the result has no creator
    and ``requires_grad=False``.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype, outside the graph.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> F.floor(np.array([1.5, -1.5])).array
        array([ 1., -2.])
    """
    a = variable.as_array(x)
    if not isinstance(a, numpy.ndarray) or a.dtype.kind != 'f':
        kind = getattr(getattr(a, 'dtype', None), 'kind', type(a).__name__)
        raise type_check.InvalidType(
            'x.dtype.kind == f', '%s != f' % kind,
            msg='Invalid operation is performed in: floor (Forward)\n\n'
                'Expect: x.dtype.kind == f\nActual: %s != f' % kind)
    # NumPy returns a scalar for a 0-d input; a Variable needs an array.
    return variable.Variable(numpy.asarray(numpy.floor(a)), requires_grad=False)
