"""A dataset of empty examples, for model-parallel ranks that take no input."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from chainlite.dataset.dataset_mixin import DatasetLike


def create_empty_dataset(dataset: DatasetLike) -> list:
    """Returns a dataset as long as ``dataset`` whose examples are empty tuples.

    A rank whose model starts with :func:`~chainlite.distributed.functions.recv` and ends
    with :func:`~chainlite.distributed.functions.send` still needs an iterator that counts
    the same iterations and epochs as its peers: this dataset gives it one.

    Args:
        dataset: DatasetLike dataset (only its length is used).

    Returns:
        A list of ``len(dataset)`` empty tuples.

    Example:
        >>> from chainlite.distributed.datasets import create_empty_dataset
        >>> create_empty_dataset([10, 20, 30])
        [(), (), ()]
    """
    return [()] * len(dataset)
