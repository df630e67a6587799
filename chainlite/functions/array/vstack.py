"""Join arrays vertically (row wise), as numpy.vstack."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from chainlite.functions.array import _join

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class Vstack(_join.Join):

    _name = 'vstack'
    _min_ndim = 2
    _axis = 0


def vstack(xs: Sequence[VariableOrArray]) -> Variable:
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
