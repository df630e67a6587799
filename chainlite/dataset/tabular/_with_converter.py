"""A view of a tabular dataset with another converter."""
from __future__ import annotations

from chainlite.dataset.tabular.tabular_dataset import TabularDataset


class _WithConverter(TabularDataset):
    """``dataset`` unchanged except that :meth:`convert` calls ``converter``."""

    def __init__(self, dataset, converter):
        self._dataset = dataset
        self._converter = converter

    def __len__(self):
        return len(self._dataset)

    @property
    def keys(self):
        return self._dataset.keys

    @property
    def mode(self):
        return self._dataset.mode

    def get_examples(self, indices, key_indices):
        return self._dataset.get_examples(indices, key_indices)

    def convert(self, data):
        if isinstance(data, dict):
            return self._converter(**data)
        if isinstance(data, tuple):
            return self._converter(*data)
        return self._converter(data)
