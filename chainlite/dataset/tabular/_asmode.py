"""Views that change only how a tabular dataset's examples are packed."""
from __future__ import annotations

from chainlite.dataset.tabular.tabular_dataset import TabularDataset


class _ModeView(TabularDataset):
    """A view of ``dataset`` with the same rows and columns and a fixed mode."""

    _fixed_mode: type = tuple

    def __init__(self, dataset):
        self._dataset = dataset

    def __len__(self):
        return len(self._dataset)

    @property
    def keys(self):
        return self._dataset.keys

    @property
    def mode(self):
        return self._fixed_mode

    def get_examples(self, indices, key_indices):
        return self._dataset.get_examples(indices, key_indices)

    def convert(self, data):
        return self._dataset.convert(data)


class _Astuple(_ModeView):
    """A view whose examples are tuples."""

    _fixed_mode = tuple


class _Asdict(_ModeView):
    """A view whose examples are dicts."""

    _fixed_mode = dict
