"""Row-wise concatenation of tabular datasets."""
from __future__ import annotations

import bisect

from chainlite.dataset.tabular.tabular_dataset import TabularDataset


class _Concat(TabularDataset):
    """The rows of several datasets with the same keys, one dataset after another."""

    def __init__(self, *datasets):
        first = datasets[0]
        for other in datasets[1:]:
            if tuple(other.keys) != tuple(first.keys):
                raise ValueError('TabularDataset.concat: all datasets must have the same keys, '
                                 'got %r and %r' % (tuple(first.keys), tuple(other.keys)))
        self._datasets = datasets

    def __len__(self):
        return sum(len(d) for d in self._datasets)

    @property
    def keys(self):
        return self._datasets[0].keys

    @property
    def mode(self):
        return self._datasets[0].mode

    def _offsets(self):
        offsets = [0]
        for d in self._datasets:
            offsets.append(offsets[-1] + len(d))
        return offsets

    def get_examples(self, indices, key_indices):
        n_cols = len(self.keys) if key_indices is None else len(key_indices)
        if indices is None:
            parts = [d.get_examples(None, key_indices) for d in self._datasets]
        elif isinstance(indices, slice):
            parts = self._slice_parts(indices, key_indices)
        else:
            return self._gather(list(indices), key_indices, n_cols)
        if len(parts) == 1:
            return parts[0]
        return tuple([v for part in parts for v in part[c]] for c in range(n_cols))

    def _slice_parts(self, indices, key_indices):
        """Reads a slice as one sub-slice per dataset it touches, in the slice's order."""
        span = range(*indices.indices(len(self)))
        step = span.step
        offsets = self._offsets()
        pieces = []
        for d, lo in zip(self._datasets, offsets):
            hi = lo + len(d)
            # positions k of span with lo <= span[k] < hi
            if step > 0:
                k0 = max(0, -((span.start - lo) // step))
                k1 = min(len(span), -((span.start - hi) // step))
            else:
                k0 = max(0, -((hi - 1 - span.start) // -step))
                k1 = min(len(span), (span.start - lo) // -step + 1)
            if k0 >= k1:
                continue
            # start at the first row inside d; stop where the slice stops, clipped to d
            first = span[k0] - lo
            if step > 0:
                stop = min(span.stop - lo, len(d))
            else:
                stop = span.stop - lo
                stop = None if stop < 0 else stop
            pieces.append((k0, d.get_examples(slice(first, stop, step), key_indices)))
        pieces.sort(key=lambda p: p[0])
        return [p[1] for p in pieces]

    def _gather(self, indices, key_indices, n_cols):
        """Reads a list of rows: one call per dataset touched, then puts rows in order."""
        offsets = self._offsets()
        total = offsets[-1]
        per_dataset: dict[int, list[int]] = {}
        where = []
        for i in indices:
            if i < 0:
                i += total
            if not 0 <= i < total:
                raise IndexError('TabularDataset.concat: row %d is out of range for a dataset '
                                 'of length %d' % (i, total))
            j = bisect.bisect_right(offsets, i) - 1
            rows = per_dataset.setdefault(j, [])
            where.append((j, len(rows)))
            rows.append(i - offsets[j])
        if not per_dataset:
            return tuple([] for _ in range(n_cols))
        read = {j: self._datasets[j].get_examples(rows, key_indices)
                for j, rows in per_dataset.items()}
        if len(read) == 1:
            return next(iter(read.values()))
        return tuple([read[j][c][p] for j, p in where] for c in range(n_cols))

    def convert(self, data):
        return self._datasets[0].convert(data)
