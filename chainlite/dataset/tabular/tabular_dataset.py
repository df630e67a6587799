"""TabularDataset: a dataset whose examples all have the same named columns."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from chainlite.dataset.dataset_mixin import DatasetMixin


class TabularDataset(DatasetMixin):
    """Abstract base of datasets made of rows that share the same named columns.

    Every example has one value per column; :attr:`keys` names the columns. :attr:`mode`
    says how an example is handed out: ``tuple`` (a tuple of the column values), ``dict``
    (column name to value) or ``None`` (a single column, handed out as its bare value).

    A subclass implements :meth:`__len__`, :attr:`keys`, :attr:`mode` and
    :meth:`get_examples`, which reads a block of rows and columns at once. The base class
    then gives indexing, iteration, column-major :meth:`fetch`, views (:attr:`slice`,
    :meth:`astuple`, :meth:`asdict`), combinations (:meth:`concat`, :meth:`join`) and
    per-example or per-batch transforms. Views read lazily: nothing is copied until an
    example is asked for.

    Example:
        >>> import numpy
        >>> from chainlite.dataset import TabularDataset
        >>> class Grid(TabularDataset):
        ...     table = numpy.arange(12).reshape(4, 3)
        ...     def __len__(self):
        ...         return 4
        ...     @property
        ...     def keys(self):
        ...         return ('x', 'y', 'z')
        ...     @property
        ...     def mode(self):
        ...         return tuple
        ...     def get_examples(self, indices, key_indices):
        ...         rows = self.table if indices is None else self.table[indices]
        ...         if key_indices is not None:
        ...             rows = rows[:, list(key_indices)]
        ...         return tuple(rows.T)
        >>> ds = Grid()
        >>> [int(v) for v in ds[1]]
        [3, 4, 5]
        >>> view = ds.slice[[2, 0], ('z', 'x')]
        >>> view.keys, [int(v) for v in view[0]]
        (('z', 'x'), [8, 6])
    """

    def __len__(self) -> int:
        """Returns the number of rows; a subclass must override it."""
        raise TypeError('%s: a TabularDataset must define __len__' % type(self).__name__)

    @property
    def keys(self) -> tuple:
        """The names of the columns, a tuple of str; a subclass must override it."""
        raise TypeError('%s: a TabularDataset must define keys' % type(self).__name__)

    @property
    def mode(self) -> Any:
        """How examples are handed out: ``tuple``, ``dict`` or ``None`` (one column, bare).

        A subclass must override it.
        """
        raise TypeError('%s: a TabularDataset must define mode' % type(self).__name__)

    def get_examples(self, indices: Any, key_indices: Any) -> tuple:
        """Reads a block of the table, column by column.

        A subclass must override it.

        Args:
            indices: The rows: ``None`` (all rows), a slice, or a list of non-negative ints.
            key_indices: The columns: ``None`` (all columns) or a tuple of column positions.

        Returns:
            A tuple with one list or array per requested column, each holding the values of
            the requested rows in order.
        """
        raise TypeError('%s: a TabularDataset must define get_examples' % type(self).__name__)

    def _pack(self, columns: tuple) -> Any:
        mode = self.mode
        if mode is tuple:
            return tuple(columns)
        if mode is dict:
            return dict(zip(self.keys, columns))
        return columns[0]

    def get_example(self, i: int) -> Any:
        """Returns row ``i`` as a tuple, a dict or a bare value, following :attr:`mode`.

        Args:
            i (int): A non-negative row index.

        Returns:
            The example.
        """
        return self._pack(tuple(column[0] for column in self.get_examples([i], None)))

    def __iter__(self):
        """Iterates over the examples in row order."""
        for i in range(len(self)):
            yield self.get_example(i)

    def fetch(self) -> Any:
        """Reads the whole table, column-major.

        Returns:
            A tuple of columns (mode ``tuple``), a dict from key to column (mode ``dict``) or
            the single column (mode ``None``); each column is a list or an array.
        """
        return self._pack(self.get_examples(None, None))

    def convert(self, data: Any) -> Any:
        """Turns fetched data (the result of :meth:`fetch`) into arrays.

        By default every column becomes a :class:`numpy.ndarray` (arrays pass through);
        :meth:`with_converter` replaces this step. Views, concatenations and joins use the
        converter of their (first) underlying dataset.

        Args:
            data: A tuple of columns, a dict of columns, or one column.

        Returns:
            The same structure, with arrays for columns.
        """
        if isinstance(data, tuple):
            return tuple(_to_array(column) for column in data)
        if isinstance(data, dict):
            return {key: _to_array(column) for key, column in data.items()}
        return _to_array(data)

    @property
    def slice(self) -> Any:
        """A helper that makes a lazy view of some rows and columns: ``ds.slice[rows, keys]``.

        ``rows`` is a slice, a list or array of ints (negative ones count from the end) or a
        boolean mask of the dataset's length. ``keys`` (optional) is a tuple of column names
        or positions, giving a view in mode ``tuple`` (or the dataset's own mode when that is
        ``dict``), or a single name or position, giving a one-column view in mode ``None``.
        """
        from chainlite.dataset.tabular import _slice
        return _slice._SliceHelper(self)

    def astuple(self) -> TabularDataset:
        """Returns a view of this dataset whose examples are tuples."""
        from chainlite.dataset.tabular import _asmode
        return _asmode._Astuple(self)

    def asdict(self) -> TabularDataset:
        """Returns a view of this dataset whose examples are dicts keyed by :attr:`keys`."""
        from chainlite.dataset.tabular import _asmode
        return _asmode._Asdict(self)

    def concat(self, *datasets: TabularDataset) -> TabularDataset:
        """Stacks this dataset and ``datasets`` one after another (rows).

        Args:
            *datasets: Tabular datasets with the same :attr:`keys` as this one.

        Returns:
            A lazy dataset with the rows of all of them; it keeps this dataset's mode.

        Raises:
            ValueError: The keys differ.
        """
        from chainlite.dataset.tabular import _concat
        return _concat._Concat(self, *datasets)

    def join(self, *datasets: TabularDataset) -> TabularDataset:
        """Puts this dataset's columns and those of ``datasets`` side by side.

        Args:
            *datasets: Tabular datasets of the same length as this one, with keys that no
                other dataset uses.

        Returns:
            A lazy dataset whose keys are all the keys in order.

        Raises:
            ValueError: The lengths differ or a key repeats.
        """
        from chainlite.dataset.tabular import _join
        return _join._Join(self, *datasets)

    def transform(self, keys: Any, transform: Callable[..., Any]) -> TabularDataset:
        """Maps every example through ``transform``, lazily.

        ``transform`` receives the example's values as positional arguments (mode ``tuple``
        or ``None``) or as keyword arguments (mode ``dict``) and returns a tuple, a dict or a
        single value; that return type sets the new dataset's mode and must not change.

        Args:
            keys (tuple of str or str): The names of the new columns.
            transform (callable): The per-example function.

        Returns:
            The transformed dataset.
        """
        from chainlite.dataset.tabular import _transform
        return _transform._Transform(self, keys, transform)

    def transform_batch(self, keys: Any, transform_batch: Callable[..., Any]) -> TabularDataset:
        """Maps blocks of examples through ``transform_batch``, lazily.

        Like :meth:`transform` but ``transform_batch`` receives whole columns (for the rows
        asked for) and returns columns of the same length.

        Args:
            keys (tuple of str or str): The names of the new columns.
            transform_batch (callable): The per-batch function.

        Returns:
            The transformed dataset.
        """
        from chainlite.dataset.tabular import _transform
        return _transform._TransformBatch(self, keys, transform_batch)

    def with_converter(self, converter: Callable[..., Any]) -> TabularDataset:
        """Returns a view of this dataset whose :meth:`convert` calls ``converter``.

        ``converter`` receives the columns as positional arguments (a tuple), keyword
        arguments (a dict) or one argument (a single column).

        Args:
            converter (callable): The new converter.

        Returns:
            The view.
        """
        from chainlite.dataset.tabular import _with_converter
        return _with_converter._WithConverter(self, converter)


def _to_array(column: Any) -> Any:
    if isinstance(column, numpy.ndarray):
        return column
    return numpy.asarray(column)


# Chainer's name of _to_array.
_as_array = _to_array
