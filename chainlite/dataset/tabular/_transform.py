"""Lazy per-example and per-batch transforms of tabular datasets."""
from __future__ import annotations

from typing import Any

from chainlite.dataset.tabular.tabular_dataset import TabularDataset

_UNSET = object()


def _mode_of(value):
    if isinstance(value, tuple):
        return tuple
    if isinstance(value, dict):
        return dict
    return None


class _TransformBase(TabularDataset):
    """Common part: the new keys and the mode learnt from the first result."""

    _what = 'transform'

    def __init__(self, dataset, keys, function):
        if not isinstance(keys, tuple):
            keys = (keys,)
        self._dataset = dataset
        self._keys = keys
        self._function = function
        self._mode = _UNSET

    def __len__(self):
        return len(self._dataset)

    @property
    def keys(self):
        return self._keys

    @property
    def mode(self):
        if self._mode is _UNSET:
            self.get_examples([0], None)
        return self._mode

    def _record_mode(self, value):
        mode = _mode_of(value)
        if self._mode is not _UNSET and self._mode is not mode:
            raise ValueError('TabularDataset.%s: the function must always return the same '
                             'type (first %s, now %s)'
                             % (self._what, _mode_name(self._mode), _mode_name(mode)))
        self._mode = mode
        return mode

    def _call(self, values):
        source_mode = self._dataset.mode
        if source_mode is dict:
            return self._function(**dict(zip(self._dataset.keys, values)))
        return self._function(*values)

    def _pick(self, result, mode, key_indices):
        if mode is dict:
            return tuple(result[self._keys[k]] for k in key_indices)
        if mode is None:
            result = (result,)
        return tuple(result[k] for k in key_indices)

    def convert(self, data):
        return self._dataset.convert(data)


class _Transform(_TransformBase):
    """``dataset`` with every example passed through ``transform``."""

    _what = 'transform'

    def get_examples(self, indices, key_indices):
        if key_indices is None:
            key_indices = range(len(self._keys))
        columns: tuple[list[Any], ...] = tuple([] for _ in key_indices)
        for values in zip(*self._dataset.get_examples(indices, None)):
            result = self._call(values)
            picked = self._pick(result, self._record_mode(result), key_indices)
            for column, value in zip(columns, picked):
                column.append(value)
        return columns


class _TransformBatch(_TransformBase):
    """``dataset`` with blocks of examples passed through ``transform_batch``."""

    _what = 'transform_batch'

    def get_examples(self, indices, key_indices):
        if indices is None:
            n = len(self)
        elif isinstance(indices, slice):
            n = len(range(*indices.indices(len(self))))
        else:
            n = len(indices)
        if key_indices is None:
            key_indices = range(len(self._keys))
        result = self._call(self._dataset.get_examples(indices, None))
        mode = self._record_mode(result)
        columns = result.values() if mode is dict else (result,) if mode is None else result
        for column in columns:
            if len(column) != n:
                raise ValueError('TabularDataset.transform_batch: the function must keep the '
                                 'number of rows (%d), returned a column of length %d'
                                 % (n, len(column)))
        return self._pick(result, mode, key_indices)


def _mode_name(mode):
    return 'None' if mode is None else mode.__name__
