"""The sweep state that every iterator shares: position, epoch, order, and how a batch moves it.

``advance`` is the one place where epochs end: with ``repeat`` the batch that crosses the end
of an epoch is completed from the next epoch (in its new order); without ``repeat`` the last
batch is short, and every later call gives None. The order sampler is called once per
completed epoch, also at the end of a non-repeating sweep, so that the random stream is
consumed exactly as Chainer consumes it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Optional

import numpy

from chainlite.dataset import iterator
from chainlite.iterators import order_samplers

if TYPE_CHECKING:
    from chainlite.dataset.dataset_mixin import DatasetLike


class IteratorState(NamedTuple):
    """Where a sweep stands (immutable, so prefetched states can be kept side by side)."""

    current_position: int
    epoch: int
    is_new_epoch: bool
    order: Optional[numpy.ndarray]


def advance(state: IteratorState, batch_size: int, repeat: bool,
            order_sampler: Optional[Callable[..., Any]], dataset_len: int
            ) -> tuple[IteratorState, Optional[numpy.ndarray]]:
    """Returns the state after one more batch and the batch's dataset indices.

    Args:
        state: The state before the batch.
        batch_size: The number of examples in a batch.
        repeat: Whether the sweep starts over after each epoch.
        order_sampler: Called as ``order_sampler(order, position)`` when an epoch ends, if
            ``state.order`` is not None; returns the next epoch's order.
        dataset_len: The dataset's length (used when ``state.order`` is None).

    Returns:
        ``(new_state, indices)``, or ``(state, None)`` once a non-repeating sweep is over.
    """
    position, epoch, _, order = state
    if not repeat and epoch > 0:
        return state, None
    size = dataset_len if order is None else len(order)
    if repeat and size == 0:
        raise ValueError('cannot repeat a sweep over an empty dataset (its epoch size is 0)')

    def take(start: int, stop: int) -> numpy.ndarray:
        if order is None:
            return numpy.arange(start, stop, dtype=numpy.intp)
        return order[start:stop]

    pieces = []
    end = position + batch_size
    is_new_epoch = False
    while end >= size:
        pieces.append(take(position, size))
        if order is not None and order_sampler is not None:  # (without a sampler: kept)
            next_order = order_sampler(order, position)
            if len(next_order) != len(order):
                raise ValueError(
                    'the order sampler returned an order of length %d for an order of length %d'
                    % (len(next_order), len(order)))
            order = next_order
        epoch += 1
        is_new_epoch = True
        position = 0
        if not repeat:
            end = 0
            break
        end -= size
    pieces.append(take(position, end))
    return IteratorState(end, epoch, is_new_epoch, order), numpy.concatenate(pieces)


def choose_order_sampler(owner: str, shuffle: Optional[bool],
                         order_sampler: Optional[Callable[..., Any]]
                         ) -> Optional[Callable[..., Any]]:
    """Returns the order sampler an iterator uses (None: the dataset's own order)."""
    if shuffle is None:
        return order_samplers.ShuffleOrderSampler() if order_sampler is None else order_sampler
    if order_sampler is not None:
        raise ValueError(
            '%s got both shuffle=%r and an order_sampler; leave shuffle as None to use the '
            'order sampler' % (owner, shuffle))
    return order_samplers.ShuffleOrderSampler() if shuffle else None


class SweepIterator(iterator.Iterator):
    """The state, the epoch counters and ``reset`` shared by the iterators of this package."""

    _state: IteratorState
    _previous_epoch_detail: float = -1.  # -1 for None: some serializers cannot store None

    def __init__(self, dataset: DatasetLike, batch_size: int, repeat: bool,
                 shuffle: Optional[bool], order_sampler: Optional[Callable[..., Any]]) -> None:
        name = type(self).__name__
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, numpy.integer)):
            raise TypeError('%s: batch_size must be an int, not %s'
                            % (name, type(batch_size).__name__))
        if batch_size < 1:
            raise ValueError('%s: batch_size must be positive, not %d' % (name, batch_size))
        self.dataset = dataset
        self.batch_size = int(batch_size)
        self._repeat = repeat
        self.order_sampler = choose_order_sampler(name, shuffle, order_sampler)

    @property
    def repeat(self) -> bool:
        """Whether the iterator sweeps the dataset again and again."""
        return self._repeat

    @property
    def current_position(self) -> int:
        """The position in the current epoch's order of the next example."""
        return self._state.current_position

    @property
    def epoch(self) -> int:
        """The number of completed sweeps."""
        return self._state.epoch

    @property
    def is_new_epoch(self) -> bool:
        """Whether the last batch completed a sweep."""
        return self._state.is_new_epoch

    @property
    def epoch_detail(self) -> float:
        """The epoch as a float: ``epoch + current_position / epoch size``."""
        size = self._epoch_size
        return self.epoch + (self.current_position / size if size else 0.)

    @property
    def previous_epoch_detail(self) -> Optional[float]:
        """``epoch_detail`` before the last batch; None before the first batch."""
        if self._previous_epoch_detail < 0:
            return None
        return self._previous_epoch_detail

    @property
    def _epoch_size(self) -> int:
        order = self._state.order
        return len(self.dataset) if order is None else len(order)

    def reset(self) -> None:
        """Starts the sweep again from its beginning (drawing a new order if it shuffles)."""
        order = None
        if self.order_sampler is not None:
            order = self.order_sampler(numpy.arange(len(self.dataset)), 0)
        self._set_state(IteratorState(0, 0, False, order))
        self._previous_epoch_detail = -1.

    def _set_state(self, state: IteratorState) -> None:
        self._state = state

    def _serialize_state(self, serializer: Any, order_key: Optional[str]) -> None:
        # order_key None: Chainer's SerialIterator layout ('order', '_order' in old snapshots,
        # omitted when there is no order; previous_epoch_detail guessed when missing).
        position = serializer('current_position', self.current_position)
        epoch = serializer('epoch', self.epoch)
        is_new_epoch = serializer('is_new_epoch', self.is_new_epoch)
        order = self._state.order
        if order_key is not None:
            order = serializer(order_key, order)
        elif order is not None:
            order = order.copy()
            try:
                order = serializer('order', order)
            except KeyError:
                order = serializer('_order', order)
        self._set_state(IteratorState(position, epoch, is_new_epoch, order))
        try:
            previous = serializer('previous_epoch_detail', self._previous_epoch_detail)
        except KeyError:
            if order_key is not None:
                raise
            size = self._epoch_size or 1
            previous = self.epoch + (self.current_position - self.batch_size) / size
            previous = max(previous, 0.) if self.epoch_detail > 0 else -1.
        self._previous_epoch_detail = -1. if previous is None else float(previous)
        sampler_serialize = getattr(self.order_sampler, 'serialize', None)
        if sampler_serialize is not None:
            try:
                sampler_serialize(serializer['order_sampler'])
            except KeyError:
                pass  # a snapshot from before samplers were saved, or from Chainer
