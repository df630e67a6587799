"""Determinants of a batch of square matrices."""
from __future__ import annotations

from typing import TYPE_CHECKING

from chainlite.functions.math import det

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class BatchDet(det.Det):

    _ndim = 3


def batch_det(a: VariableOrArray) -> Variable:
    """Determinant of every matrix in a batch of square matrices.

    Args:
        a: A float Variable or array of shape ``(m, n, n)``: ``m`` matrices of ``n x n``;
            float16 is computed in float32.

    Returns:
        A Variable of shape ``(m,)`` and the same dtype. Its gradient needs the inverses of
        the matrices, so it raises ValueError if one is singular.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.batch_det(np.stack([np.eye(2), 3 * np.eye(2)])).array
        array([1., 9.])
    """
    return BatchDet().apply((a,))[0]
