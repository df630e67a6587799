"""Lazy row/column views of a tabular dataset (``dataset.slice[rows, keys]``)."""
from __future__ import annotations

import numbers

import numpy

from chainlite.dataset.tabular.tabular_dataset import TabularDataset


class _Slice(TabularDataset):
    """The rows ``indices`` and columns ``keys`` of ``dataset``, read on demand."""

    def __init__(self, dataset, indices, keys):
        # _single: None (all columns), True (one column given bare), False (a tuple).
        if keys is None:
            self._single = None
        elif isinstance(keys, tuple):
            self._single = False
        else:
            self._single = True
            keys = (keys,)
        self._dataset = dataset
        self._indices = _normalize_rows(indices, len(dataset))
        self._key_indices = _normalize_keys(keys, tuple(dataset.keys))

    def __len__(self):
        rows = self._indices
        if rows is None:
            return len(self._dataset)
        if isinstance(rows, slice):
            return len(range(*rows.indices(len(self._dataset))))
        return len(rows)

    @property
    def keys(self):
        keys = self._dataset.keys
        if self._key_indices is None:
            return keys
        return tuple(keys[k] for k in self._key_indices)

    @property
    def mode(self):
        if self._single is None:
            return self._dataset.mode
        if self._single:
            return None
        return self._dataset.mode or tuple

    def get_examples(self, indices, key_indices):
        rows = _compose_rows(self._indices, indices, len(self._dataset))
        cols = _merge_key_indices(self._key_indices, key_indices)
        return self._dataset.get_examples(rows, cols)

    def convert(self, data):
        return self._dataset.convert(data)


class _SliceHelper:
    """What :attr:`TabularDataset.slice` returns; index it to get a view."""

    def __init__(self, dataset):
        self._dataset = dataset

    def __getitem__(self, args):
        if isinstance(args, tuple):
            if len(args) != 2:
                raise IndexError('TabularDataset.slice: expected [rows] or [rows, keys], got '
                                 '%d items' % len(args))
            indices, keys = args
        else:
            indices, keys = args, None
        return _Slice(self._dataset, indices, keys)


def _normalize_rows(indices, length):
    """Checks the rows of a view: a slice, or a list of in-range non-negative ints."""
    if indices is None or isinstance(indices, slice):
        return indices
    if isinstance(indices, (numbers.Integral, str, bytes)) or not hasattr(indices, '__len__'):
        raise TypeError('TabularDataset.slice: rows must be a slice, a list or array of ints '
                        'or a boolean mask, got %s' % type(indices).__name__)
    if len(indices) == 0:
        return []
    if all(isinstance(i, (bool, numpy.bool_)) for i in indices):
        if len(indices) != length:
            raise ValueError('TabularDataset.slice: a boolean mask must have the length of '
                             'the dataset (%d), got %d' % (length, len(indices)))
        return [i for i, flag in enumerate(indices) if flag]
    rows = []
    for index in indices:
        i = int(index)
        if i < 0:
            i += length
        if not 0 <= i < length:
            raise IndexError('TabularDataset.slice: row %d is out of range for a dataset of '
                             'length %d' % (int(index), length))
        rows.append(i)
    return rows


def _normalize_keys(keys, names):
    """Turns column names or positions into a tuple of positions in ``names``."""
    if keys is None:
        return None
    positions = []
    for key in keys:
        if isinstance(key, numbers.Integral) and not isinstance(key, bool):
            k = int(key)
            if k < 0:
                k += len(names)
            if not 0 <= k < len(names):
                raise IndexError('TabularDataset.slice: column %d is out of range for %d '
                                 'columns' % (int(key), len(names)))
        else:
            if key not in names:
                raise KeyError('TabularDataset.slice: no column named %r (keys are %r)'
                               % (key, names))
            k = names.index(key)
        positions.append(k)
    return tuple(positions)


def _compose_rows(outer, inner, length):
    """Rows of the base dataset that the rows ``inner`` of a view with rows ``outer`` are.

    ``outer`` indexes a dataset of ``length`` rows; both are None, a slice or a list.
    Slices compose to a slice so that the base dataset can still read a contiguous block.
    """
    if inner is None:
        return outer
    if outer is None:
        return inner
    if isinstance(outer, slice):
        span = range(*outer.indices(length))
        if isinstance(inner, slice):
            sub = span[inner]
            if len(sub) == 0:
                return slice(0, 0, 1)
            stop = sub.stop if sub.stop >= 0 else None
            return slice(sub.start, stop, sub.step)
        return [span[i] for i in inner]
    if isinstance(inner, slice):
        return list(outer[inner])
    return [outer[i] for i in inner]


def _as_indices(indices, len_):
    """Chainer's name of :func:`_normalize_rows` (an empty list of rows comes back as given)."""
    if not isinstance(indices, slice) and indices is not None and hasattr(indices, '__len__') \
            and len(indices) == 0:
        return indices
    return _normalize_rows(indices, len_)


# Chainer's name of _normalize_keys.
_as_key_indices = _normalize_keys


def _merge_indices(a, b, len_a, len_b):
    """Chainer's name of :func:`_compose_rows`: the rows ``b`` (of a view of ``len_b`` rows)
    of the rows ``a`` (of a dataset of ``len_a`` rows)."""
    return _compose_rows(a, b, len_a)


def _merge_key_indices(a, b):
    """The columns ``b`` of the columns ``a`` (either None for all)."""
    if b is None:
        return a
    if a is None:
        return b
    return tuple(a[k] for k in b)
