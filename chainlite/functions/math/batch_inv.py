"""Inverses of a batch of square matrices."""
from __future__ import annotations

from typing import TYPE_CHECKING

from chainlite.functions.math import inv

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class BatchInv(inv.Inv):

    _ndim = 3


def batch_inv(a: VariableOrArray) -> Variable:
    """Inverse of every matrix in a batch of square matrices.

    Args:
        a: A float Variable or array of shape ``(m, n, n)``: ``m`` matrices of ``n x n``;
            float16 is computed in float32.

    Returns:
        A Variable of the same shape and dtype.

    Raises:
        ValueError: If a matrix is singular.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.batch_inv(np.stack([np.eye(2), 2 * np.eye(2)])).array[1]
        array([[0.5, 0. ],
               [0. , 0.5]])
    """
    return BatchInv().apply((a,))[0]
