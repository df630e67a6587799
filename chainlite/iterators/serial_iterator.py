"""SerialIterator: reads the examples of each batch one after another in the calling thread."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from chainlite.iterators import _sweep

if TYPE_CHECKING:
    from chainlite.iterators.order_samplers import OrderSamplerLike
    from chainlite.dataset.dataset_mixin import DatasetLike


class SerialIterator(_sweep.SweepIterator):
    """Iterates over a dataset in minibatches (lists of examples), in order or shuffled.

    Each epoch visits every example once, in the order drawn by ``order_sampler`` (by default
    a new random permutation per epoch) or in index order with ``shuffle=False``. With
    ``repeat`` the sweep never ends and a batch that crosses the end of an epoch is filled up
    from the next epoch, in its new order; without it the last batch holds the remaining
    examples and the next call raises ``StopIteration``. In its snapshots a missing
    ``previous_epoch_detail`` is saved as ``-1``.

    Args:
        dataset: The dataset (anything with ``len`` and ``[index]``).
        batch_size: The number of examples per batch.
        repeat: Whether to sweep the dataset again and again; otherwise iteration stops after
            one epoch.
        shuffle: True for a new random order each epoch, False for index order; None means
            True unless ``order_sampler`` is given.
        order_sampler: A callable ``(current_order, current_position) -> next_order`` called
            at each epoch's end (see :class:`~chainlite.iterators.OrderSampler`); only with
            ``shuffle=None``.

    Attributes:
        dataset: The dataset.
        batch_size: The number of examples per batch.
        order_sampler: The order sampler, or None for index order.
        epoch: The number of completed sweeps.
        epoch_detail: The epoch as a float (2.5 in the middle of the third sweep).
        previous_epoch_detail: ``epoch_detail`` before the last batch (None before the first).
        is_new_epoch: True when the last batch completed a sweep.

    Example:
        >>> from chainlite import iterators
        >>> it = iterators.SerialIterator([0, 1, 2, 3, 4], 2, shuffle=False)
        >>> next(it), next(it), next(it)
        ([0, 1], [2, 3], [4, 0])
        >>> it.epoch, it.epoch_detail, it.is_new_epoch
        (1, 1.2, True)
        >>> list(iterators.SerialIterator([0, 1, 2, 3, 4], 2, repeat=False, shuffle=False))
        [[0, 1], [2, 3], [4]]
    """

    def __init__(self, dataset: DatasetLike, batch_size: int, repeat: bool = True,
                 shuffle: Optional[bool] = None,
                 order_sampler: Optional[OrderSamplerLike] = None) -> None:
        super().__init__(dataset, batch_size, repeat, shuffle, order_sampler)
        self.reset()

    def __next__(self) -> list[Any]:
        self._previous_epoch_detail = self.epoch_detail
        self._state, indices = _sweep.advance(
            self._state, self.batch_size, self._repeat, self.order_sampler, len(self.dataset))
        if indices is None:
            raise StopIteration
        return [self.dataset[index] for index in indices]

    next = __next__

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the position, epoch, order and ``previous_epoch_detail``.

        The keys are Chainer's: ``current_position``, ``epoch``, ``is_new_epoch``, ``order``
        (absent without an order; ``_order`` is read from old snapshots) and
        ``previous_epoch_detail`` (guessed when an old snapshot lacks it).

        Args:
            serializer: A serializer or deserializer.
        """
        self._serialize_state(serializer, None)
