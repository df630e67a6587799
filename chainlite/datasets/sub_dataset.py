"""SubDataset and the splits built from it: train/validation splits, n-way splits and
k-fold cross validation, in order or shuffled with a seed.

The shuffled splits draw their permutation from ``numpy.random.RandomState(seed)``, as
Chainer does, so a seed gives the same subsets in both.
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Sequence, Union

import numpy

from chainlite.dataset import dataset_mixin

if TYPE_CHECKING:
    from chainlite.dataset.dataset_mixin import DatasetLike

Order = Union[Sequence[int], numpy.ndarray, None]
"""A permutation of a dataset's indices (a sequence or an integer array), or None."""


class SubDataset(dataset_mixin.DatasetMixin):
    """A contiguous part of a dataset, optionally of a permutation of it.

    The ``i``-th example is ``dataset[order[start + i]]`` (``dataset[start + i]`` without
    ``order``); negative ``i`` count back from ``finish``. The examples are not copied.

    Args:
        dataset: The base dataset.
        start: The first index of the part (in ``order`` when given).
        finish: One past the last index of the part.
        order: A permutation of ``range(len(dataset))``, or None for the natural order.

    Raises:
        ValueError: The part overruns the dataset, or ``order`` has the wrong length.

    Example:
        >>> from chainlite.datasets import SubDataset
        >>> sub = SubDataset([10, 11, 12, 13], 1, 3, order=[3, 2, 1, 0])
        >>> len(sub), sub[0], sub[-1], sub[:]
        (2, 12, 11, [12, 11])
    """

    def __init__(self, dataset: DatasetLike, start: int, finish: int,
                 order: Order = None) -> None:
        if start < 0 or finish > len(dataset) or start > finish:
            raise ValueError('SubDataset: the part [%d, %d) overruns the base dataset of '
                             'length %d' % (start, finish, len(dataset)))
        if order is not None and len(order) != len(dataset):
            raise ValueError('SubDataset: order must have the length of the base dataset: '
                             'len(order) = %d while len(dataset) = %d'
                             % (len(order), len(dataset)))
        self._dataset = dataset
        self._start = start
        self._finish = finish
        self._size = finish - start
        self._order = order

    def __len__(self) -> int:
        return self._size

    def get_example(self, i: int) -> Any:
        if not -self._size <= i < self._size:
            raise IndexError('SubDataset index %d out of range for length %d'
                             % (i, self._size))
        index = self._start + i if i >= 0 else self._finish + i
        if self._order is not None:
            index = self._order[index]
        return self._dataset[index]


def split_dataset(dataset: DatasetLike, split_at: int,
                  order: Order = None) -> tuple[SubDataset, SubDataset]:
    """Splits a dataset in two at an index.

    Args:
        dataset: The dataset to split.
        split_at: The length of the first part.
        order: A permutation of the indices to split instead of the natural order.

    Returns:
        Two :class:`SubDataset`: the examples ``order[:split_at]`` and ``order[split_at:]``.

    Raises:
        TypeError: ``split_at`` is not an int.
        ValueError: ``split_at`` is negative or beyond the dataset.

    Example:
        >>> from chainlite.datasets import split_dataset
        >>> train, val = split_dataset([1, 2, 3, 4, 5], 3)
        >>> train[:], val[:]
        ([1, 2, 3], [4, 5])
    """
    n_examples = len(dataset)
    if not isinstance(split_at, (int, numpy.integer)) or isinstance(split_at, bool):
        raise TypeError('split_dataset: split_at must be int, got %s instead'
                        % type(split_at).__name__)
    if split_at < 0:
        raise ValueError('split_dataset: split_at must be non-negative, got %d' % split_at)
    if split_at > n_examples:
        raise ValueError('split_dataset: split_at (%d) exceeds the dataset size (%d)'
                         % (split_at, n_examples))
    return (SubDataset(dataset, 0, split_at, order),
            SubDataset(dataset, split_at, n_examples, order))


def split_dataset_random(dataset: DatasetLike, first_size: int,
                         seed: int | None = None) -> tuple[SubDataset, SubDataset]:
    """Splits a dataset in two at random.

    Args:
        dataset: The dataset to split.
        first_size: The length of the first part.
        seed: The seed of the permutation (the same seed gives the same split); None for a
            different split each call.

    Returns:
        Two :class:`SubDataset` that share no example and together hold them all.

    Example:
        >>> from chainlite.datasets import split_dataset_random
        >>> train, val = split_dataset_random(list(range(10)), 7, seed=0)
        >>> len(train), len(val), sorted(train[:] + val[:]) == list(range(10))
        (7, 3, True)
    """
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return split_dataset(dataset, first_size, order)


def _check_n(n: Any, name: str, caller: str) -> None:
    if not isinstance(n, (int, numpy.integer)) or isinstance(n, bool):
        raise TypeError('%s: %s must be int, got %s' % (caller, name, type(n).__name__))
    if n <= 0:
        raise ValueError('%s: %s must be positive, got %d' % (caller, name, n))


def split_dataset_n(dataset: DatasetLike, n: int,
                    order: Order = None) -> list[SubDataset]:
    """Splits a dataset into ``n`` parts of ``len(dataset) // n`` examples each.

    The last ``len(dataset) % n`` examples (of ``order``) belong to no part.

    Args:
        dataset: The dataset to split.
        n: The number of parts.
        order: A permutation of the indices to split instead of the natural order.

    Returns:
        A list of ``n`` :class:`SubDataset`.

    Example:
        >>> from chainlite.datasets import split_dataset_n
        >>> [part[:] for part in split_dataset_n([1, 2, 3, 4, 5], 2)]
        [[1, 2], [3, 4]]
    """
    _check_n(n, 'n', 'split_dataset_n')
    size = len(dataset) // n
    return [SubDataset(dataset, size * i, size * (i + 1), order) for i in range(n)]


def split_dataset_n_random(dataset: DatasetLike, n: int,
                           seed: int | None = None) -> list[SubDataset]:
    """Splits a dataset into ``n`` parts of ``len(dataset) // n`` random examples each.

    Args:
        dataset: The dataset to split.
        n: The number of parts.
        seed: The seed of the permutation; None for a different split each call.

    Returns:
        A list of ``n`` :class:`SubDataset` that share no example.

    Example:
        >>> from chainlite.datasets import split_dataset_n_random
        >>> [len(part) for part in split_dataset_n_random(list(range(7)), 3, seed=1)]
        [2, 2, 2]
    """
    _check_n(n, 'n', 'split_dataset_n_random')
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return split_dataset_n(dataset, n, order)


def _n_folds_argument(n_folds: Any, kwargs: dict, caller: str) -> int:
    # Chainer's deprecated n_fold keyword still works, with a DeprecationWarning.
    if 'n_fold' in kwargs:
        warnings.warn('%s: the argument n_fold is deprecated, use n_folds' % caller,
                      DeprecationWarning, stacklevel=3)
        n_folds = kwargs.pop('n_fold')
    if kwargs:
        raise TypeError('%s got an unexpected keyword argument %r' % (caller, next(iter(kwargs))))
    _check_n(n_folds, 'n_folds', caller)
    return n_folds


def get_cross_validation_datasets(dataset: DatasetLike, n_folds: int | None = None,
                                  order: Order = None,
                                  **kwargs: Any) -> list[tuple[SubDataset, SubDataset]]:
    """Makes the ``n_folds`` training/test splits of k-fold cross validation.

    The indices (of ``order``) are cut into ``n_folds`` contiguous folds whose sizes differ
    by one at most; each split tests on one fold and trains on the others. The test sets
    share no example and together cover the dataset. The splits come in Chainer's order:
    the first tests on the last fold, the second on the one before, and so on.

    Args:
        dataset: The dataset to split.
        n_folds: The number of folds (at most ``len(dataset)``).
        order: A permutation of the indices to cut instead of the natural order.
        **kwargs: ``n_fold``, the deprecated name of ``n_folds``.

    Returns:
        A list of ``n_folds`` pairs ``(train, test)`` of :class:`SubDataset`.

    Raises:
        ValueError: ``n_folds`` is not positive or exceeds the length of the dataset.

    Example:
        >>> from chainlite.datasets import get_cross_validation_datasets
        >>> [(train[:], test[:]) for train, test in
        ...  get_cross_validation_datasets([0, 1, 2, 3, 4], 2)]
        [([0, 1], [2, 3, 4]), ([2, 3, 4], [0, 1])]
    """
    n_folds = _n_folds_argument(n_folds, kwargs, 'get_cross_validation_datasets')
    whole_size = len(dataset)
    if n_folds > whole_size:
        raise ValueError('get_cross_validation_datasets: n_folds (%d) exceeds the dataset size '
                         '(%d)' % (n_folds, whole_size))
    indices = numpy.arange(whole_size) if order is None else numpy.asarray(order)
    borders = [whole_size * i // n_folds for i in range(n_folds + 1)]
    splits = []
    for fold in reversed(range(n_folds)):
        begin, end = borders[fold], borders[fold + 1]
        # The training indices wrap around from the end of the test fold to its start.
        fold_order = numpy.concatenate([indices[end:], indices[:begin], indices[begin:end]])
        splits.append(split_dataset(dataset, whole_size - (end - begin), fold_order))
    return splits


def get_cross_validation_datasets_random(dataset: DatasetLike, n_folds: int | None = None,
                                         seed: int | None = None,
                                         **kwargs: Any) -> list[tuple[SubDataset, SubDataset]]:
    """Makes the splits of k-fold cross validation over a random permutation.

    The same as :func:`get_cross_validation_datasets` with ``order`` drawn at random.

    Args:
        dataset: The dataset to split.
        n_folds: The number of folds.
        seed: The seed of the permutation; None for different folds each call.
        **kwargs: ``n_fold``, the deprecated name of ``n_folds``.

    Returns:
        A list of ``n_folds`` pairs ``(train, test)`` of :class:`SubDataset`.

    Example:
        >>> from chainlite.datasets import get_cross_validation_datasets_random
        >>> splits = get_cross_validation_datasets_random(list(range(7)), 3, seed=1)
        >>> [(len(train), len(test)) for train, test in splits]
        [(4, 3), (5, 2), (5, 2)]
    """
    n_folds = _n_folds_argument(n_folds, kwargs, 'get_cross_validation_datasets_random')
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return get_cross_validation_datasets(dataset, n_folds, order)
