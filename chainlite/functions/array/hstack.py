"""Join arrays horizontally (column wise), as numpy.hstack."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from chainlite.functions.array import _join

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class Hstack(_join.Join):

    _name = 'hstack'
    _min_ndim = 1
    _axis = 1


def hstack(xs: Sequence[VariableOrArray]) -> Variable:
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
