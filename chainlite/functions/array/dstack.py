"""Join arrays depth wise (along the third axis), as numpy.dstack."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from chainlite.functions.array import _join

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class Dstack(_join.Join):

    _name = 'dstack'
    _min_ndim = 3
    _axis = 2


def dstack(xs: Sequence[VariableOrArray]) -> Variable:
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
