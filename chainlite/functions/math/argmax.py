"""Index of the maximum over an axis (not differentiable)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy

from chainlite import variable
from chainlite.functions import _axis
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def _select_index(x, axis, label, method):
    # Shared by argmax and argmin: validate, then call the array method named `method`.
    a = variable.as_array(x)
    if not isinstance(a, numpy.ndarray) or a.dtype.kind != 'f':
        kind = getattr(getattr(a, 'dtype', None), 'kind', type(a).__name__)
        raise type_check.InvalidType(
            'x.dtype.kind == f', '%s != f' % kind,
            msg='Invalid operation is performed in: %s (Forward)\n\n'
                'Expect: x.dtype.kind == f\nActual: %s != f' % (label, kind))
    if isinstance(axis, (tuple, list)):
        raise TypeError('%s: axis must be None or an int, got %r' % (label, axis))
    axis = _axis.normalize_axis(axis, a.ndim, label)
    # As Chainer, indices are int32; NumPy returns a scalar for a full reduction.
    y = numpy.asarray(getattr(a, method)(axis=axis)).astype(numpy.int32)
    return variable.Variable(y, requires_grad=False)


def argmax(x: VariableOrArray, axis: int | None = None) -> Variable:
    """Index of the maximum element along an axis.

    The result is an integer index with no gradient, so, as in Chainer, it has no creator
    and ``requires_grad=False``. The first occurrence wins in a tie.

    Args:
        x: A float Variable or array.
        axis: None (the index into the flattened array) or an int.

    Returns:
        An int32 Variable, outside the graph.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.argmax(np.array([[1.0, 5.0, 2.0], [4.0, 0.0, 3.0]]), axis=1).array
        array([1, 0], dtype=int32)
    """
    return _select_index(x, axis, 'argmax', 'argmax')
