"""DelegateDataset: a base for tabular datasets that wrap another one."""
from __future__ import annotations

from typing import Any

from chainlite.dataset.tabular.tabular_dataset import TabularDataset


class DelegateDataset(TabularDataset):
    """A tabular dataset that hands everything to the dataset it wraps.

    Subclass it to give a ready-made tabular dataset (for instance one built with
    :func:`~chainlite.dataset.tabular.from_data`) a class of its own.

    Example:
        >>> from chainlite.dataset import tabular
        >>> class Squares(tabular.DelegateDataset):
        ...     def __init__(self, n):
        ...         super().__init__(tabular.from_data(('sq', lambda i: i * i), size=n))
        >>> ds = Squares(4)
        >>> ds.keys, list(ds)
        (('sq',), [0, 1, 4, 9])

    Args:
        dataset (TabularDataset): The wrapped dataset, kept as :attr:`dataset`.
    """

    def __init__(self, dataset: TabularDataset) -> None:
        self.dataset = dataset

    def __len__(self) -> int:
        """Returns the wrapped dataset's length."""
        return len(self.dataset)

    @property
    def keys(self) -> tuple:
        """The wrapped dataset's keys."""
        return self.dataset.keys

    @property
    def mode(self) -> Any:
        """The wrapped dataset's mode."""
        return self.dataset.mode

    def get_examples(self, indices: Any, key_indices: Any) -> tuple:
        """Reads from the wrapped dataset (see :meth:`TabularDataset.get_examples`)."""
        return self.dataset.get_examples(indices, key_indices)

    def convert(self, data: Any) -> Any:
        """Converts with the wrapped dataset's converter."""
        return self.dataset.convert(data)
