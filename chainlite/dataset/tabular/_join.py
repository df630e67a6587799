"""Column-wise joining of tabular datasets."""
from __future__ import annotations

from chainlite.dataset.tabular.tabular_dataset import TabularDataset


class _Join(TabularDataset):
    """The columns of several datasets of one length, side by side."""

    def __init__(self, *datasets):
        first = datasets[0]
        seen = set(first.keys)
        for other in datasets[1:]:
            if len(other) != len(first):
                raise ValueError('TabularDataset.join: all datasets must have the same length, '
                                 'got %d and %d' % (len(first), len(other)))
            repeated = seen.intersection(other.keys)
            if repeated:
                raise ValueError('TabularDataset.join: keys must be unique among the datasets, '
                                 '%r repeat' % sorted(repeated))
            seen.update(other.keys)
        self._datasets = datasets

    def __len__(self):
        return len(self._datasets[0])

    @property
    def keys(self):
        return tuple(k for d in self._datasets for k in d.keys)

    @property
    def mode(self):
        for d in self._datasets:
            if d.mode is not None:
                return d.mode
        return tuple

    def get_examples(self, indices, key_indices):
        if key_indices is None:
            return tuple(col for d in self._datasets for col in d.get_examples(indices, None))
        columns = {}
        start = 0
        for d in self._datasets:
            width = len(d.keys)
            wanted = []
            for k in key_indices:
                if start <= k < start + width and k - start not in wanted:
                    wanted.append(k - start)
            if wanted:
                got = d.get_examples(indices, tuple(wanted))
                for k, col in zip(wanted, got):
                    columns[start + k] = col
            start += width
        return tuple(columns[k] for k in key_indices)

    def convert(self, data):
        return self._datasets[0].convert(data)
