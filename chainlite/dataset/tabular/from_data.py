"""from_data: build a TabularDataset out of lists, arrays and callables."""
from __future__ import annotations

from typing import Any

import numpy

from chainlite.dataset.tabular.tabular_dataset import TabularDataset


def from_data(data: Any, *, size: Any = None) -> TabularDataset:
    """Makes a tabular dataset from lists, arrays and per-row functions.

    ``data`` may be:

    - a list or array: one column (mode ``None``) with a generated key;
    - ``(key, column)``: one named column, where ``column`` is a list, an array, or a
      function of the row index;
    - ``((key, ...), function)``: several columns computed by one function of the row index,
      which returns a tuple or a dict;
    - a tuple of any of the above: their columns joined, mode ``tuple``;
    - a dict ``{key or (key, ...): column or function}``: their columns joined, mode ``dict``.

    Nothing is copied: lists and arrays are read where they are, functions are called when
    a row is read.

    Example:
        >>> from chainlite.dataset import tabular
        >>> ds = tabular.from_data((('x', [1, 2, 3]), ('sq', lambda i: i * i)))
        >>> ds.keys, ds[2]
        (('x', 'sq'), (3, 4))
        >>> ds = tabular.from_data({'a': [5, 6]})
        >>> ds[1]
        {'a': 6}

    Args:
        data: The columns, in one of the forms above.
        size (int): The number of rows; needed only when ``data`` holds no list or array.

    Returns:
        TabularDataset: The dataset.

    Raises:
        ValueError: A function is given without a key, or no length can be found.
        TypeError: A column is neither a list, an array nor a callable.
    """
    if isinstance(data, tuple):
        if len(data) == 2 and _is_key_spec(data[0]):
            return _column(data[0], data[1], size)
        items = [item if isinstance(item, tuple) else (None, item) for item in data]
        return _joined(items, size).astuple()
    if isinstance(data, dict):
        return _joined(list(data.items()), size).asdict()
    return _column(None, data, size)


def _is_key_spec(key):
    return isinstance(key, str) or (
        isinstance(key, tuple) and all(isinstance(k, str) for k in key))


def _joined(items, size):
    if not items:
        raise ValueError('from_data: data holds no column')
    if size is None:
        for _, column in items:
            if not callable(column) and hasattr(column, '__len__'):
                size = len(column)
                break
    parts = [_column(key, column, size) for key, column in items]
    return parts[0].join(*parts[1:])


def _column(key, column, size):
    if isinstance(column, (numpy.ndarray, list)):
        if key is None:
            key = '_%d' % id(column)
        return _Array(key, column)
    if callable(column):
        if key is None:
            raise ValueError('from_data: a callable column needs a key')
        if size is None:
            raise ValueError('from_data: size must be given when no list or array sets the '
                             'length')
        return _Index(size).transform(key, column)
    raise TypeError('from_data: a column must be a list, an array or a callable, got %s'
                    % type(column).__name__)


# Chainer's name of _column.
_make_dataset = _column


class _Array(TabularDataset):
    """One column backed by a list or an array (read in place)."""

    def __init__(self, key, data):
        self._key = key
        self._data = data

    def __len__(self):
        return len(self._data)

    @property
    def keys(self):
        return (self._key,)

    @property
    def mode(self):
        return None

    def get_examples(self, indices, key_indices):
        data = self._data
        if indices is None:
            column = data
        elif isinstance(indices, slice) or isinstance(data, numpy.ndarray):
            column = data[indices]
        else:
            column = [data[i] for i in indices]
        return (column,) * (1 if key_indices is None else len(key_indices))


_List = _Array


class _Index(TabularDataset):
    """The row numbers ``0 .. size-1`` as a single column named ``'index'``."""

    def __init__(self, size):
        self._size = int(size)

    def __len__(self):
        return self._size

    @property
    def keys(self):
        return ('index',)

    @property
    def mode(self):
        return None

    def get_examples(self, indices, key_indices):
        if indices is None:
            indices = slice(None)
        if isinstance(indices, slice):
            indices = list(range(*indices.indices(self._size)))
        return (indices,) * (1 if key_indices is None else len(key_indices))
