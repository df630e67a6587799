"""An iterator whose batches come from one rank (the master) and reach all the others."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from chainlite import serializer as serializer_module
from chainlite.dataset import iterator as iterator_module

if TYPE_CHECKING:
    from chainlite.dataset.iterator import Iterator
    from chainlite.distributed.communicators.communicator_base import CommunicatorBase

_STATE = ('epoch', 'is_new_epoch', 'current_position', 'epoch_detail')


class _MultiNodeIteratorMaster(iterator_module.Iterator):
    """The master's side: draws from the actual iterator and broadcasts each batch."""

    def __init__(self, actual_iterator: Iterator, communicator: CommunicatorBase,
                 rank_master: int) -> None:
        object.__setattr__(self, 'actual_iterator', actual_iterator)
        object.__setattr__(self, 'communicator', communicator)
        object.__setattr__(self, 'rank_master', rank_master)
        communicator.bcast_obj(len(cast(Any, actual_iterator).dataset), root=rank_master)

    def _state(self) -> tuple:
        return tuple(getattr(self.actual_iterator, k, None) for k in _STATE)

    def __next__(self) -> list[Any]:
        try:
            batch = next(self.actual_iterator)
        except StopIteration:
            self.communicator.bcast_obj((True, self._state(), None), root=self.rank_master)
            raise
        self.communicator.bcast_obj((False, self._state(), batch), root=self.rank_master)
        return batch

    next = __next__

    def __getattr__(self, name: str) -> Any:
        return getattr(self.actual_iterator, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.actual_iterator, name, value)

    def reset(self) -> None:
        """Resets the actual iterator (every rank must call it together)."""
        self.actual_iterator.reset()
        self.communicator.bcast_obj(self._state(), root=self.rank_master)

    def serialize(self, serializer: Any) -> None:
        """Serializes the actual iterator, then shares its state with the other ranks."""
        self.actual_iterator.serialize(serializer)
        self.communicator.bcast_obj(self._state(), root=self.rank_master)

    def finalize(self) -> None:
        """Finalizes the actual iterator."""
        finalize = getattr(self.actual_iterator, 'finalize', None)
        if finalize is not None:
            finalize()


class _MultiNodeIteratorSlave(iterator_module.Iterator):
    """The other ranks' side: receives the master's batches and iteration state."""

    def __init__(self, communicator: CommunicatorBase, rank_master: int) -> None:
        self.communicator = communicator
        self.rank_master = rank_master
        self.dataset_size = communicator.bcast_obj(None, root=rank_master)
        self.epoch = 0
        self.is_new_epoch = False
        self.current_position = 0
        self.epoch_detail = 0.0

    def _set_state(self, state: tuple) -> None:
        for k, v in zip(_STATE, state):
            if v is not None:
                setattr(self, k, v)

    def __next__(self) -> list[Any]:
        stop, state, batch = self.communicator.bcast_obj(None, root=self.rank_master)
        self._set_state(state)
        if stop:
            raise StopIteration
        return batch

    next = __next__

    def reset(self) -> None:
        """Follows the master's reset."""
        self._set_state(self.communicator.bcast_obj(None, root=self.rank_master))

    def serialize(self, serializer: Any) -> None:
        """Takes the master's state; when saving, writes it as the master does."""
        self._set_state(self.communicator.bcast_obj(None, root=self.rank_master))
        if not isinstance(serializer, serializer_module.Deserializer):
            for key in ('epoch', 'is_new_epoch', 'current_position'):
                serializer(key, getattr(self, key))


def create_multi_node_iterator(actual_iterator: Iterator, communicator: CommunicatorBase,
                               rank_master: int = 0) -> Any:
    """Makes every rank see the batches that ``rank_master``'s iterator yields.

    Model-parallel ranks that hold different parts of one model must process the same
    examples: the master draws each batch and broadcasts it (any picklable examples), the
    others receive it, with the master's ``epoch``, ``is_new_epoch``, ``current_position``
    and ``epoch_detail``, so triggers fire on every rank alike. Every rank calls ``next``,
    ``reset`` and ``serialize`` together.

    Args:
        actual_iterator: The master's iterator (ignored on the other ranks).
        communicator: A communicator.
        rank_master: The rank whose iterator is used.

    Returns:
        An iterator.

    Example:
        ::

            it = create_multi_node_iterator(
                chainlite.iterators.SerialIterator(train, 32), comm)
    """
    if communicator.rank == rank_master:
        return _MultiNodeIteratorMaster(actual_iterator, communicator, rank_master)
    return _MultiNodeIteratorSlave(communicator, rank_master)
