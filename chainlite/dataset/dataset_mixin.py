"""DatasetMixin: indexing by ints, slices and index arrays on top of ``get_example``."""
from __future__ import annotations

import operator
from typing import Any, Protocol

import numpy


class DatasetLike(Protocol):
    """What iterators and dataset wrappers accept as a dataset: anything with ``len`` and
    ``[index]`` (a list, a NumPy array, a :class:`DatasetMixin`, a tuple dataset, ...)."""

    def __len__(self) -> int:
        """The number of examples."""

    def __getitem__(self, index: Any) -> Any:
        """The example (or, for slices and index arrays, the examples) at ``index``."""


class DatasetMixin:
    """Gives a dataset Python's indexing on top of a per-example :meth:`get_example`.

    A subclass implements :meth:`__len__` and :meth:`get_example`; indexing then accepts an
    int (negative ones count from the end), a slice, or a one-dimensional list or array of
    indices (or a boolean mask of the dataset's length), the last two returning a list of
    examples. Integer indices out of range raise :class:`IndexError` before
    :meth:`get_example` is called, so that ``for example in dataset`` stops at the end. Any
    other index (a file name, say) is handed to :meth:`get_example` unchanged. A subclass may
    override :meth:`__getitem__` to slice faster.

    Example:
        >>> from chainlite.dataset import DatasetMixin
        >>> class Squares(DatasetMixin):
        ...     def __len__(self):
        ...         return 5
        ...     def get_example(self, i):
        ...         return i * i
        >>> ds = Squares()
        >>> ds[2], ds[-1], ds[1:4], ds[[4, 0]]
        (4, 16, [1, 4, 9], [16, 0])
    """

    def __getitem__(self, index: Any) -> Any:
        """Returns one example, or a list of examples for a slice or an index array.

        Args:
            index: An int, a slice, or a one-dimensional list or :class:`numpy.ndarray` of
                ints (or of booleans, a mask of the dataset's length).

        Returns:
            The example :meth:`get_example` gives for an int; a list of examples otherwise.

        Raises:
            IndexError: An integer index out of range.
        """
        if isinstance(index, slice):
            return [self.get_example(i) for i in range(*index.indices(len(self)))]
        if isinstance(index, (list, numpy.ndarray)):
            indices = numpy.asarray(index)
            if indices.ndim == 0:
                return self.get_example(self._normalize_index(indices.item()))
            if indices.ndim != 1:
                raise IndexError('%s: an index array must be one-dimensional, got shape %s'
                                 % (type(self).__name__, indices.shape))
            if indices.dtype == numpy.bool_:
                if len(indices) != len(self):
                    raise IndexError('%s: a boolean mask must have the length of the dataset '
                                     '(%d), got %d'
                                     % (type(self).__name__, len(self), len(indices)))
                return [self.get_example(int(i)) for i in numpy.flatnonzero(indices)]
            return [self.get_example(self._normalize_index(i)) for i in index]
        if isinstance(index, (int, numpy.integer)) and not isinstance(index, bool):
            return self.get_example(self._normalize_index(index))
        return self.get_example(index)

    def _normalize_index(self, index: Any) -> int:
        # Turns a negative index into a non-negative one and checks the range.
        i = operator.index(index)
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError('%s index %d out of range for length %d'
                             % (type(self).__name__, index, n))
        return i

    def __len__(self) -> int:
        """Returns the number of examples (a subclass must implement it)."""
        raise NotImplementedError('%s must implement __len__ (DatasetMixin does not know the '
                                  'number of examples)' % type(self).__name__)

    def get_example(self, i: int) -> Any:
        """Returns the ``i``-th example (a subclass must implement it).

        Args:
            i: The index of the example, non-negative and in range when it comes from
                :meth:`__getitem__`.

        Returns:
            The example.
        """
        raise NotImplementedError('%s must implement get_example(i)' % type(self).__name__)
