"""MultithreadIterator: worker threads load the next batch while the current one is used."""
from __future__ import annotations

import weakref
from multiprocessing import pool as pool_module
from typing import TYPE_CHECKING, Any, Optional

from chainlite.iterators import _sweep

if TYPE_CHECKING:
    from chainlite.iterators.order_samplers import OrderSamplerLike
    from chainlite.dataset.dataset_mixin import DatasetLike


class MultithreadIterator(_sweep.SweepIterator):
    """Iterates over a dataset like :class:`SerialIterator`, loading examples in threads.

    As soon as a batch is returned, ``n_threads`` threads start loading the next one, which
    pays off when examples are read from files or decoded by code that releases the GIL. The
    batches, epochs and orders are the same as :class:`SerialIterator`'s. An error raised by
    the dataset reaches the caller of ``next``. :meth:`finalize` (or ``with``) stops the
    threads.

    Args:
        dataset: The dataset (anything with ``len`` and ``[index]``).
        batch_size: The number of examples per batch.
        repeat: Whether to sweep the dataset again and again.
        shuffle: True for a new random order each epoch, False for index order; None means
            True unless ``order_sampler`` is given.
        n_threads: The number of loading threads.
        order_sampler: A callable ``(current_order, current_position) -> next_order``; only
            with ``shuffle=None``.

    Attributes:
        dataset: The dataset.
        batch_size: The number of examples per batch.
        n_threads: The number of loading threads.
        order_sampler: The order sampler, or None for index order.

    Example:
        >>> from chainlite import iterators
        >>> with iterators.MultithreadIterator(list(range(5)), 2, repeat=False,
        ...                                    shuffle=False, n_threads=2) as it:
        ...     list(it)
        [[0, 1], [2, 3], [4]]
    """

    _pool: Optional[pool_module.ThreadPool] = None
    _finalizer: Optional[weakref.finalize] = None
    _next: Any = None

    def __init__(self, dataset: DatasetLike, batch_size: int, repeat: bool = True,
                 shuffle: Optional[bool] = None, n_threads: int = 1,
                 order_sampler: Optional[OrderSamplerLike] = None) -> None:
        super().__init__(dataset, batch_size, repeat, shuffle, order_sampler)
        if isinstance(n_threads, bool) or not isinstance(n_threads, int) or n_threads < 1:
            raise ValueError('MultithreadIterator: n_threads must be a positive int, not %r'
                             % (n_threads,))
        self.n_threads = n_threads
        self.reset()

    def __next__(self) -> list[Any]:
        if self._next is None:
            self._prefetch()
        batch = self._collect()
        self._prefetch()
        return batch

    next = __next__

    def _prefetch(self) -> None:
        self._next_state, indices = _sweep.advance(
            self._state, self.batch_size, self._repeat, self.order_sampler, len(self.dataset))
        if indices is None:
            self._next = None
            return
        if self._pool is None:
            self._pool = pool_module.ThreadPool(self.n_threads)
            # Runs at the interpreter's exit too, while the modules the pool needs still exist.
            self._finalizer = weakref.finalize(self, self._pool.terminate)
        self._next = self._pool.map_async(self.dataset.__getitem__, indices)

    def _collect(self) -> list:
        self._previous_epoch_detail = self.epoch_detail
        self._state = self._next_state
        pending, self._next = self._next, None
        if pending is None:
            raise StopIteration
        return pending.get()

    def reset(self) -> None:
        super().reset()
        self._next = None

    def finalize(self) -> None:
        """Stops the loading threads; a later ``next`` starts new ones."""
        finalizer, self._finalizer = self._finalizer, None
        self._pool = self._next = None
        if finalizer is not None:
            finalizer()

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the position, epoch, order and ``previous_epoch_detail``.

        The keys are Chainer's for this iterator: ``current_position``, ``epoch``,
        ``is_new_epoch``, ``_order`` (None without an order) and ``previous_epoch_detail``.

        Args:
            serializer: A serializer or deserializer.
        """
        self._serialize_state(serializer, '_order')
        self._next = None
