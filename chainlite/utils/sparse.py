"""Sparse matrices in COO format, for :func:`chainlite.functions.sparse_matmul`."""
from __future__ import annotations

from typing import Any, Optional

from chainlite import backend
from chainlite import variable


class CooMatrix:
    """A sparse matrix, or a batch of them, in COO (coordinate) format.

    Entries whose row index is negative are padding: every matrix of a batch holds the same
    number of entries (``ldnz``), the unused ones at the end with row and column ``-1``.

    Args:
        data: The entries: shape ``(ldnz,)``, or ``(batch, ldnz)`` for a batch. An array, or
            a Variable (used as it is, so gradients reach the graph that computed it).
        row: The row index of each entry (``data``'s shape, integers).
        col: The column index of each entry (``data``'s shape, integers).
        shape: The dense shape ``(rows, cols)`` of one matrix.
        order: ``'C'`` (row indices sorted), ``'F'`` (column indices sorted), ``'other'``,
            or None to find out from ``row`` and ``col``; a hint, as in Chainer.
        requires_grad: Whether backward computes a gradient for ``data`` (for an array).

    Attributes:
        data: The entries as a :class:`~chainlite.Variable`.
        row: The row indices.
        col: The column indices.
        shape: The dense shape of one matrix.
        order: ``'C'``, ``'F'`` or ``'other'``.

    Example:
        >>> import numpy as np
        >>> from chainlite.utils.sparse import CooMatrix
        >>> m = CooMatrix(np.array([2.0, -1.0]), np.array([0, 1]), np.array([1, 0]), (2, 3))
        >>> m.to_dense()
        array([[ 0.,  2.,  0.],
               [-1.,  0.,  0.]])
    """

    def __init__(self, data: Any, row: Any, col: Any, shape: tuple,
                 order: Optional[str] = None, requires_grad: bool = False) -> None:
        if not 1 <= data.ndim <= 2:
            raise ValueError('CooMatrix: data must be 1-D or 2-D (a batch), got %d-D'
                             % data.ndim)
        if not data.shape == row.shape == col.shape:
            raise ValueError('CooMatrix: data, row and col must have one shape, got %s, %s '
                             'and %s' % (data.shape, row.shape, col.shape))
        if row.dtype.kind not in 'iu' or col.dtype.kind not in 'iu':
            raise ValueError('CooMatrix: row and col must be integer arrays')
        shape = tuple(shape)
        if len(shape) != 2 or not (shape[0] > 0 and shape[1] > 0):
            raise ValueError('CooMatrix: shape must be two positive ints, got %s' % (shape,))
        if order not in ('C', 'F', 'other', None):
            raise ValueError("CooMatrix: order must be 'C', 'F', 'other' or None, got %r"
                             % (order,))
        if not isinstance(data, variable.Variable):
            data = variable.Variable(data, requires_grad=requires_grad)
        self.data = data
        self.row = row
        self.col = col
        self.shape = shape
        self.order = get_order(row, col) if order is None else order

    def to_dense(self) -> Any:
        """Returns the dense matrix, or the batch of them (duplicate entries add up)."""
        data = self.data.array
        xp = backend.get_array_module(data)
        valid = self.row >= 0
        if data.ndim == 1:
            x = xp.zeros(self.shape, data.dtype)
            xp.add.at(x, (self.row[valid], self.col[valid]), data[valid])
            return x
        batch = xp.broadcast_to(xp.arange(data.shape[0])[:, None], data.shape)
        x = xp.zeros((data.shape[0],) + self.shape, data.dtype)
        xp.add.at(x, (batch[valid], self.row[valid], self.col[valid]), data[valid])
        return x


def to_coo(x: Any, ldnz: Optional[int] = None, requires_grad: bool = False) -> CooMatrix:
    """Converts a dense matrix, or a batch of them, to a :class:`CooMatrix`.

    The nonzero elements are listed in row-major order (so the result has ``'C'`` order).

    Args:
        x: A 2-D array (one matrix) or a 3-D array (a batch of matrices along axis 0).
        ldnz: The number of entries to hold per matrix; the result holds
            ``max(ldnz, most nonzeros in one matrix)``, padded with zeros at index ``-1``.
        requires_grad: Whether backward computes a gradient for the entries.

    Returns:
        A :class:`CooMatrix` with int32 indices.

    Example:
        >>> import numpy as np
        >>> from chainlite.utils.sparse import to_coo
        >>> m = to_coo(np.array([[0, 2, 0], [-1, 0, 0]], np.float32))
        >>> m.data.array
        array([ 2., -1.], dtype=float32)
        >>> m.row, m.col, m.shape
        (array([0, 1], dtype=int32), array([1, 0], dtype=int32), (2, 3))
    """
    x = variable.as_array(x)
    if x.ndim not in (2, 3):
        raise ValueError('to_coo: x must be 2-D or 3-D (a batch), got %d-D' % x.ndim)
    xp = backend.get_array_module(x)
    x3 = x if x.ndim == 3 else x[None]
    b, r, c = xp.nonzero(x3)  # row-major: sorted by batch, then row, then column
    counts = xp.bincount(b, minlength=x3.shape[0])
    # The host needs the largest count for the shapes (CuPy's max takes no ``initial``).
    size = max(int(counts.max()) if counts.size else 0, ldnz or 0)
    # Where each nonzero goes in its matrix's list: its rank among that matrix's nonzeros.
    pos = xp.arange(b.size) - (xp.cumsum(counts) - counts)[b]
    data = xp.zeros((x3.shape[0], size), x.dtype)
    row = xp.full((x3.shape[0], size), -1, xp.int32)
    col = xp.full((x3.shape[0], size), -1, xp.int32)
    data[b, pos] = x3[b, r, c]
    row[b, pos] = r
    col[b, pos] = c
    if x.ndim == 2:
        data, row, col = data[0], row[0], col[0]
    return CooMatrix(data, row, col, x.shape[-2:], order='C', requires_grad=requires_grad)


def get_order(row: Any, col: Any) -> str:
    """Tells the order of COO entries from their indices (padding, at index -1, is skipped).

    Args:
        row: Row indices, 1-D or 2-D (a batch).
        col: Column indices of the same shape.

    Returns:
        ``'C'`` if the entries are sorted by row and then column, ``'F'`` if by column and
        then row, ``'other'`` otherwise.

    Raises:
        ValueError: If ``row`` and ``col`` differ in shape, or one index of an entry is
            negative and the other is not.

    Example:
        >>> import numpy as np
        >>> from chainlite.utils.sparse import get_order
        >>> get_order(np.array([0, 0, 1]), np.array([0, 2, 1]))
        'C'
    """
    if row.shape != col.shape:
        raise ValueError('get_order: row and col must have one shape, got %s and %s'
                         % (row.shape, col.shape))
    if ((row < 0) != (col < 0)).any():
        raise ValueError('get_order: an entry has one negative index and one not')
    if _sorted(row, col):
        return 'C'
    if _sorted(col, row):
        return 'F'
    return 'other'


def _sorted(major, minor):
    # Whether consecutive real entries (padding skipped) are sorted by (major, minor).
    pairs = [(major, minor)] if major.ndim == 1 else zip(major, minor)
    for m, n in pairs:
        valid = m >= 0
        m, n = m[valid], n[valid]
        if not ((m[1:] > m[:-1]) | ((m[1:] == m[:-1]) & (n[1:] >= n[:-1]))).all():
            return False
    return True


def _add_at(add_at: Any, x: Any, row: Any, col: Any, data: Any) -> None:
    # ``add_at(x, (row, col), data)`` over the entries up to the last nonzero one (the rest
    # is padding), as Chainer's helper of to_dense.
    if data.size == 0:
        raise ValueError('_add_at: data holds no entries')
    last_nz = data.size - (data != 0)[::-1].argmax()
    add_at(x, (row[:last_nz], col[:last_nz]), data[:last_nz])


def _is_c_order(row: Any, col: Any) -> bool:
    # Whether the entries are sorted by row and then column (padding at -1 skipped).
    if row.shape != col.shape:
        raise ValueError('shape of row and col must be the same.')
    if ((row < 0) != (col < 0)).any():
        raise ValueError('invalid index combination of row and col.')
    return _sorted(row, col)
