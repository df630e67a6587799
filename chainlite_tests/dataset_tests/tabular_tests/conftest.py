"""A small recording table shared by the tabular tests (as the ``table_cls`` fixture)."""
import numpy
import pytest

from chainlite.dataset import TabularDataset


class Table(TabularDataset):
    """A 3-column table ``values[r, c] = 10 * r + c`` that logs every get_examples call."""

    def __init__(self, n=6, keys=('p', 'q', 'r'), mode=tuple, arrays=False):
        self.values = numpy.arange(n)[:, None] * 10 + numpy.arange(len(keys))[None, :]
        self._keys = keys
        self._mode = mode
        self.arrays = arrays
        self.calls = []

    def __len__(self):
        return len(self.values)

    @property
    def keys(self):
        return self._keys

    @property
    def mode(self):
        return self._mode

    def get_examples(self, indices, key_indices):
        self.calls.append((indices, key_indices))
        block = self.values if indices is None else self.values[indices]
        if key_indices is not None:
            block = block[:, list(key_indices)]
        if self.arrays:
            return tuple(block.T)
        return tuple([int(v) for v in col] for col in block.T)


@pytest.fixture
def table_cls():
    """The :class:`Table` class."""
    return Table
