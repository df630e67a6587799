"""Iterators that shuffle alike on every rank."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite.dataset import iterator as iterator_module
from chainlite.iterators import order_samplers

if TYPE_CHECKING:
    from chainlite.dataset.iterator import Iterator
    from chainlite.distributed.communicators.communicator_base import CommunicatorBase


class _SynchronizedIterator(iterator_module.Iterator):
    """Wraps an iterator whose shuffling draws from a generator seeded alike on every rank."""

    def __init__(self, actual_iterator: Iterator, communicator: CommunicatorBase) -> None:
        if not hasattr(actual_iterator, 'order_sampler'):
            raise ValueError('create_synchronized_iterator: actual_iterator must have an '
                             'order_sampler attribute (as SerialIterator has), got %s'
                             % type(actual_iterator).__name__)
        object.__setattr__(self, 'actual_iterator', actual_iterator)
        object.__setattr__(self, 'communicator', communicator)
        seed = None
        if communicator.rank == 0:
            seed = int(numpy.random.randint(0, 2 ** 31 - 1))
        seed = communicator.bcast_obj(seed, root=0)
        shuffled: Any = actual_iterator  # (a SerialIterator-like one, with an order sampler)
        shuffled.order_sampler = order_samplers.ShuffleOrderSampler(
            numpy.random.RandomState(seed))
        shuffled.reset()

    def __next__(self) -> list[Any]:
        return next(self.actual_iterator)

    next = __next__

    def __getattr__(self, name: str) -> Any:
        return getattr(self.actual_iterator, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.actual_iterator, name, value)

    def serialize(self, serializer: Any) -> None:
        """Serializes the actual iterator."""
        self.actual_iterator.serialize(serializer)


def create_synchronized_iterator(actual_iterator: Iterator, communicator: CommunicatorBase) -> Any:
    """Makes every rank's iterator shuffle in the same order.

    Rank 0 draws a seed and broadcasts it; each rank's iterator then shuffles with a
    generator of that seed, so (on the same dataset) every rank yields the same batches
    without sending them. Cheaper than :func:`create_multi_node_iterator` when each rank
    can load the dataset itself.

    Args:
        actual_iterator: An iterator with an ``order_sampler`` (e.g. ``SerialIterator``).
        communicator: A communicator.

    Returns:
        The synchronized iterator.

    Example:
        ::

            it = create_synchronized_iterator(
                chainlite.iterators.SerialIterator(train, 32, shuffle=True), comm)
    """
    return _SynchronizedIterator(actual_iterator, communicator)
