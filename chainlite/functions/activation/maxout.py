"""Maxout: the maximum over groups of consecutive units."""
from __future__ import annotations

from typing import TYPE_CHECKING

from chainlite import variable
from chainlite.functions import _axis
from chainlite.functions.array import reshape
from chainlite.functions.math import max as max_
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _invalid(expect, actual):
    return type_check.InvalidType(
        expect, actual, msg='Invalid operation is performed in: maxout (Forward)\n\n'
                            'Expect: %s\nActual: %s' % (expect, actual))


def maxout(x: VariableOrArray, pool_size: int, axis: int = 1) -> Variable:
    """Maxout activation: the maximum over groups of ``pool_size`` units along ``axis``.

    The ``axis`` dimension, of size ``M * pool_size``, is split into ``(M, pool_size)`` and
    the maximum is taken over the second. As with :func:`chainlite.functions.max`, in a tie
    every maximal element receives the whole gradient.

    Args:
        x: A float Variable or array with at least ``axis + 1`` dimensions.
        pool_size: The number of units in each group (a positive int dividing
            ``x.shape[axis]``).
        axis: The axis to pool over (negative values count from the end).

    Returns:
        A Variable of ``x``'s dtype and shape, except that ``x.shape[axis]`` becomes
        ``x.shape[axis] // pool_size``.

    Raises:
        TypeError: If ``pool_size`` is not an int.
        ValueError: If ``pool_size`` is not positive.
        chainlite.utils.type_check.InvalidType: If ``x`` is not float, ``axis`` is out of
            range, or ``pool_size`` does not divide ``x.shape[axis]``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.maxout(np.array([[1.0, 4.0, 3.0, 2.0, 0.0, 5.0]]), 3).array
        array([[4., 5.]])
    """
    a = variable.as_array(x)
    if not isinstance(pool_size, int) or isinstance(pool_size, bool):
        raise TypeError('maxout: pool_size must be an int, got %s' % type(pool_size).__name__)
    if pool_size <= 0:
        raise ValueError('maxout: pool_size must be positive, got %d' % pool_size)
    if a.dtype.kind != 'f':
        raise _invalid('x.dtype.kind == f', '%s != f' % a.dtype.kind)
    axis = _axis.normalize_axis(axis, a.ndim, 'maxout')
    size = a.shape[axis]
    if size % pool_size:
        raise _invalid('x.shape[axis] % pool_size == 0',
                       'x.shape[%d] = %d, pool_size = %d' % (axis, size, pool_size))
    shape = a.shape[:axis] + (size // pool_size, pool_size) + a.shape[axis + 1:]
    return max_.max(reshape.reshape(x, shape), axis=axis + 1)
