"""TransformDataset: a dataset whose examples pass through a function when read."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from chainlite.dataset import dataset_mixin

if TYPE_CHECKING:
    from chainlite.dataset.dataset_mixin import DatasetLike


class TransformDataset(dataset_mixin.DatasetMixin):
    """Applies a function to each example of a dataset as it is read.

    The function receives the example itself, not a copy: it should build new arrays
    (``x = x - 0.5``) rather than change the given ones in place (``x -= 0.5`` would alter
    the underlying dataset).

    Args:
        dataset: The underlying dataset (``__len__`` and ``__getitem__``).
        transform: A function from an example of ``dataset`` to the example to return.

    Example:
        >>> from chainlite.datasets import TransformDataset
        >>> ds = TransformDataset([1, 2, 3], lambda x: (x, x % 2))
        >>> len(ds), ds[0], ds[1:]
        (3, (1, 1), [(2, 0), (3, 1)])
    """

    def __init__(self, dataset: DatasetLike, transform: Callable[[Any], Any]) -> None:
        if not callable(transform):
            raise TypeError('TransformDataset: transform must be callable, got %s'
                            % type(transform).__name__)
        self._dataset = dataset
        self._transform = transform

    def __len__(self) -> int:
        return len(self._dataset)

    def get_example(self, i: int) -> Any:
        return self._transform(self._dataset[i])
