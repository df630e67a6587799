"""TupleDataset: equal-length datasets zipped into one dataset of tuples."""
from __future__ import annotations

from typing import Any


class TupleDataset:
    """Zips equal-length datasets: the ``i``-th example is the tuple of their ``i``-th ones.

    Each index goes to every underlying dataset as is: an int gives a tuple of examples, a
    slice a list of tuples, and an index array (for datasets that are NumPy arrays) a tuple
    of the selected arrays, as in Chainer.

    Args:
        *datasets: The datasets (arrays, lists, other datasets), all of the same length.

    Raises:
        ValueError: No datasets, or datasets of different lengths.

    Example:
        >>> import numpy as np
        >>> from chainlite.datasets import TupleDataset
        >>> ds = TupleDataset(np.array([8, 0, 5]), [3, 1, 7])
        >>> len(ds), ds[1], ds[1:]
        (3, (np.int64(0), 1), [(np.int64(0), 1), (np.int64(5), 7)])
    """

    def __init__(self, *datasets: Any) -> None:
        if not datasets:
            raise ValueError('TupleDataset: no datasets are given')
        length = len(datasets[0])
        for i, dataset in enumerate(datasets):
            if len(dataset) != length:
                raise ValueError('TupleDataset: dataset %d has length %d, dataset 0 has %d'
                                 % (i, len(dataset), length))
        self._datasets = datasets
        self._length = length

    def __getitem__(self, index: Any) -> Any:
        batches = [dataset[index] for dataset in self._datasets]
        if isinstance(index, slice):
            return list(zip(*batches))
        return tuple(batches)

    def __len__(self) -> int:
        return self._length
