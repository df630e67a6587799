"""DictDataset: equal-length datasets combined into one dataset of dicts."""
from __future__ import annotations

from typing import Any


class DictDataset:
    """Combines equal-length datasets: the ``i``-th example maps each keyword to the
    ``i``-th example of its dataset.

    An int index gives a dict, a slice a list of dicts, and an index array (for datasets that
    are NumPy arrays) a dict of the selected arrays, as in Chainer.

    Args:
        **datasets: The datasets, all of the same length, by key.

    Raises:
        ValueError: No datasets, or datasets of different lengths.

    Example:
        >>> from chainlite.datasets import DictDataset
        >>> ds = DictDataset(x=[1, 2, 3], t=[0, 1, 0])
        >>> len(ds), ds[1], ds[:2]
        (3, {'x': 2, 't': 1}, [{'x': 1, 't': 0}, {'x': 2, 't': 1}])
    """

    def __init__(self, **datasets: Any) -> None:
        if not datasets:
            raise ValueError('DictDataset: no datasets are given')
        length: int | None = None
        for key, dataset in datasets.items():
            if length is None:
                length, first = len(dataset), key
            elif len(dataset) != length:
                raise ValueError('DictDataset: dataset %r has length %d, dataset %r has %d'
                                 % (key, len(dataset), first, length))
        self._datasets = datasets
        self._length: int = len(next(iter(datasets.values())))

    def __getitem__(self, index: Any) -> Any:
        batches = {key: dataset[index] for key, dataset in self._datasets.items()}
        if isinstance(index, slice):
            length = len(next(iter(batches.values())))
            return [{key: batch[i] for key, batch in batches.items()} for i in range(length)]
        return batches

    def __len__(self) -> int:
        return self._length
