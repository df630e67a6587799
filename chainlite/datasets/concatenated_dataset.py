"""ConcatenatedDataset: datasets one after another, read as one."""
from __future__ import annotations

from typing import Any

from chainlite.dataset import dataset_mixin


class ConcatenatedDataset(dataset_mixin.DatasetMixin):
    """Chains datasets: the examples of the first, then those of the second, and so on.

    The lengths are read on every access, so datasets that grow stay visible.

    Args:
        *datasets: The datasets (``__len__`` and ``__getitem__``).

    Example:
        >>> from chainlite.datasets import ConcatenatedDataset
        >>> ds = ConcatenatedDataset([1, 2], [3, 4, 5])
        >>> len(ds), ds[2], ds[-1], ds[1:4]
        (5, 3, 5, [2, 3, 4])
    """

    def __init__(self, *datasets: Any) -> None:
        self._datasets = datasets

    def __len__(self) -> int:
        return sum(len(dataset) for dataset in self._datasets)

    def get_example(self, i: int) -> Any:
        if i >= 0:
            for dataset in self._datasets:
                n = len(dataset)
                if i < n:
                    return dataset[i]
                i -= n
        raise IndexError('ConcatenatedDataset index out of range')
