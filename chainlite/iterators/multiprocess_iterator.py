"""MultiprocessIterator: worker processes load the next batches through shared memory."""
from __future__ import annotations

import collections
import itertools
import math
import multiprocessing
import time
import warnings
import weakref
from multiprocessing import sharedctypes
from typing import TYPE_CHECKING, Any, Optional, cast

import numpy

from chainlite.iterators import _process_pool
from chainlite.iterators import _sweep

if TYPE_CHECKING:
    from chainlite.iterators.order_samplers import OrderSamplerLike
    from chainlite.dataset.dataset_mixin import DatasetLike


class _Batch:
    """A batch on its way: its examples as they arrive, and the sweep state after it."""

    def __init__(self, state: _sweep.IteratorState, indices: Optional[numpy.ndarray]) -> None:
        self.state = state
        self.indices = indices  # None: the sweep is over (StopIteration)
        self.items: list = [] if indices is None else [None] * len(indices)
        self.slot: Optional[int] = None
        self.outstanding = 0
        self.error: Optional[_process_pool.RemoteError] = None
        self.overflow = False
        self.stale = False


class MultiprocessIterator(_sweep.SweepIterator):
    """Iterates over a dataset like :class:`SerialIterator`, loading examples in processes.

    ``n_processes`` worker processes load the next ``n_prefetch`` batches while the current
    one is used. NumPy arrays in an example (the example itself, or the arrays at the top
    level of a tuple, list or dict) come back through shared memory; other values are
    pickled. With ``shared_mem=None`` the first batch is loaded in the calling process to
    measure the space an example needs. The batches, epochs and orders are the same as
    :class:`SerialIterator`'s for the same random seed (orders are drawn in the calling
    process).

    The iterator never waits forever: an exception raised by the dataset in a worker is
    raised again by ``next`` (same type and message, the worker's traceback as its cause),
    a worker that dies makes ``next`` raise ``RuntimeError``, and a batch still loading after
    ``dataset_error_timeout`` seconds makes it stop the workers and raise ``TimeoutError``;
    the workers are then restarted by the following call, which loads that batch again. The
    workers end with the process that started them, however it ends (on Linux the kernel
    kills them at once, even inside a slow ``__getitem__``), so none outlives it.
    :meth:`finalize` (or leaving ``with``, or garbage collection, or the interpreter's exit)
    terminates the workers for good: as in Chainer, the finalized iterator cannot be reset or
    loaded from a snapshot (``NotImplementedError``), and chainlite's ``next`` raises the same
    error (``copy.copy`` gives a fresh iterator at the same position).

    Args:
        dataset: The dataset (anything with ``len`` and ``[index]``; picklable if the
            platform spawns processes instead of forking).
        batch_size: The number of examples per batch.
        repeat: Whether to sweep the dataset again and again.
        shuffle: True for a new random order each epoch, False for index order; None means
            True unless ``order_sampler`` is given.
        n_processes: The number of worker processes; None for the number of CPUs.
        n_prefetch: The number of batches loaded ahead.
        shared_mem: The bytes of shared memory per example; None to measure them on the first
            batch, 0 to pickle everything. Arrays that do not fit are pickled (with a warning).
        order_sampler: A callable ``(current_order, current_position) -> next_order``; only
            with ``shuffle=None``.
        dataset_timeout: Seconds after which a batch that is still loading makes the iterator
            warn with :class:`MultiprocessIterator.TimeoutWarning`; None never warns.
        maxtasksperchild: The number of tasks (runs of examples) after which a worker is
            replaced by a fresh process; None keeps the workers.
        dataset_error_timeout: Seconds after which a batch that is still loading makes
            ``next`` stop the workers and raise ``TimeoutError`` (chainlite's; Chainer only
            warns); None waits forever. It does not bound the first batch that
            ``shared_mem=None`` loads in the calling process.

    Attributes:
        dataset: The dataset.
        batch_size: The number of examples per batch.
        n_processes: The number of worker processes.
        n_prefetch: The number of batches loaded ahead.
        shared_mem: The bytes of shared memory per example, as given.
        dataset_timeout: The stall warning's delay in seconds.
        dataset_error_timeout: The stall error's delay in seconds.
        maxtasksperchild: The tasks after which a worker is replaced.
        order_sampler: The order sampler, or None for index order.

    Example:
        >>> from chainlite import iterators
        >>> with iterators.MultiprocessIterator(list(range(5)), 2, repeat=False,
        ...                                     shuffle=False, n_processes=1) as it:
        ...     list(it)
        [[0, 1], [2, 3], [4]]
    """

    class TimeoutWarning(RuntimeWarning):
        """Warns that a batch has been loading for longer than ``dataset_timeout`` seconds."""

    _pool: Optional[_process_pool.ProcessPool] = None
    _finalized = False
    _finalizer: Optional[weakref.finalize] = None
    _prefetch_state: _sweep.IteratorState
    _buffer: Optional[numpy.ndarray] = None
    _shared: Any = None

    def __init__(self, dataset: DatasetLike, batch_size: int, repeat: bool = True,
                 shuffle: Optional[bool] = None, n_processes: Optional[int] = None,
                 n_prefetch: int = 1, shared_mem: Optional[int] = None,
                 order_sampler: Optional[OrderSamplerLike] = None,
                 dataset_timeout: Optional[float] = 30.0,
                 maxtasksperchild: Optional[int] = None,
                 dataset_error_timeout: Optional[float] = 600.0) -> None:
        super().__init__(dataset, batch_size, repeat, shuffle, order_sampler)
        for name, value, least in (('n_processes', n_processes, 1), ('n_prefetch', n_prefetch, 0),
                                   ('shared_mem', shared_mem, 0),
                                   ('maxtasksperchild', maxtasksperchild, 1)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or value < least):
                raise ValueError('MultiprocessIterator: %s must be None or an int >= %d, not %r'
                                 % (name, least, value))
        for name, limit in (('dataset_timeout', dataset_timeout),
                            ('dataset_error_timeout', dataset_error_timeout)):
            if limit is not None and not limit > 0:
                raise ValueError('MultiprocessIterator: %s must be None or positive, not %r'
                                 % (name, limit))
        self.shuffle = shuffle
        self.n_processes = n_processes or multiprocessing.cpu_count()
        self.n_prefetch = max(n_prefetch, 1)
        self.shared_mem = shared_mem
        self.dataset_timeout = dataset_timeout
        self.dataset_error_timeout = dataset_error_timeout
        self.maxtasksperchild = maxtasksperchild
        self._mem_size: Optional[int] = shared_mem  # None until measured on the first batch
        self._shared = None
        self._init_prefetch()
        self.reset()

    def _init_prefetch(self) -> None:
        self._pending: collections.deque = collections.deque()  # the next batches, in order
        self._inflight: dict = {}  # key -> _Batch still being loaded (pending or discarded)
        self._free_slots = list(range(self.n_prefetch))  # regions of the shared buffer
        self._keys = itertools.count()
        self._overflow_warned = False

    def __copy__(self) -> 'MultiprocessIterator':
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._pool = other._finalizer = other._shared = None
        other._finalized = False
        other._init_prefetch()
        other._prefetch_state = other._state
        return other

    def __getstate__(self) -> dict:
        # A pickled iterator keeps its position, order and settings; the workers, the shared
        # buffer and the batches on their way stay behind, and the copy starts its own
        # workers at its first next.
        state = self.__dict__.copy()
        for name in ('_pool', '_finalizer', '_shared', '_buffer', '_pending', '_inflight',
                     '_free_slots', '_keys', '_overflow_warned', '_finalized'):
            state.pop(name, None)
        state['_prefetch_state'] = self._state
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._shared = None
        self._init_prefetch()

    def __next__(self) -> list[Any]:
        if self._pool is None:
            if self._finalized:
                raise _finalized_error('next')
            if self._mem_size is None:
                return self._next_measured()
            self._start()
        self._top_up()
        start = time.monotonic()
        while not self._pending:  # discarded batches still hold all of the shared memory
            self._receive(self._until_error(start))
            self._top_up()
            if not self._pending:
                self._fail_if_stalled(start, None)
        batch = self._pending[0]
        self._wait_for(batch)
        if batch.error is not None:
            self._set_state(self._state, force=True)  # the next call loads this batch again
            raise batch.error.rebuild()
        self._pending.popleft()
        if batch.indices is not None:
            buffer = self._buffer  # None when no example is shared, so unpack never reads it
            examples = [_process_pool.unpack(item, cast(numpy.ndarray, buffer))
                        for item in batch.items]
        self._release(batch)
        self._previous_epoch_detail = self.epoch_detail
        self._state = batch.state
        if batch.indices is None:
            raise StopIteration
        if batch.overflow and not self._overflow_warned:
            self._overflow_warned = True
            warnings.warn('MultiprocessIterator: an example needs more than the %d bytes of '
                          'shared memory given to each example, so its arrays were pickled; '
                          'pass a larger shared_mem' % (self._mem_size or 0), UserWarning,
                          stacklevel=2)
        self._top_up()
        return examples

    next = __next__

    def _next_measured(self) -> list:
        # Loads the first batch here to learn how much shared memory an example needs.
        start = time.monotonic()
        state, indices = _sweep.advance(
            self._state, self.batch_size, self._repeat, self.order_sampler, len(self.dataset))
        batch = None if indices is None else [self.dataset[index] for index in indices]
        self._warn_if_stalled(time.monotonic() - start)
        self._previous_epoch_detail = self.epoch_detail
        self._set_state(state)
        if batch is None:
            raise StopIteration
        self._mem_size = max(map(_process_pool.measure, batch), default=0)
        self._start()
        self._top_up()
        return batch

    def _start(self) -> None:
        mem_size = self._mem_size or 0  # measured by now
        if mem_size and self._shared is None:
            size = self.n_prefetch * self.batch_size * mem_size
            self._shared = sharedctypes.RawArray('b', size)
        self._buffer = None if not mem_size else numpy.frombuffer(self._shared, numpy.uint8)
        pool = _process_pool.ProcessPool(
            self.dataset, self.n_processes, self._shared if mem_size else None,
            mem_size, self.maxtasksperchild)
        self._pool = pool
        self._finalizer = weakref.finalize(self, pool.close)

    def _top_up(self) -> None:
        # Keeps n_prefetch batches on their way (orders are drawn here, in sweep order).
        pool = self._pool
        assert pool is not None  # started before any batch is requested
        while len(self._pending) < self.n_prefetch and self._free_slots:
            if self._pending and self._pending[-1].indices is None:
                return
            self._prefetch_state, indices = _sweep.advance(
                self._prefetch_state, self.batch_size, self._repeat, self.order_sampler,
                len(self.dataset))
            batch = _Batch(self._prefetch_state, indices)
            if indices is not None:
                key = next(self._keys)
                batch.slot = self._free_slots.pop()
                base = batch.slot * self.batch_size * self._mem_size if self._mem_size else None
                run = max(1, math.ceil(len(indices) / (4 * self.n_processes)))
                for start in range(0, len(indices), run):
                    pool.submit(key, base, start, indices[start:start + run])
                    batch.outstanding += 1
                if batch.outstanding:
                    self._inflight[key] = batch
            self._pending.append(batch)

    def _wait_for(self, batch: _Batch) -> None:
        start = time.monotonic()
        warned = self.dataset_timeout is None
        while batch.outstanding and batch.error is None:
            timeout = self._until_error(start)
            limit = self.dataset_timeout
            if not warned and limit is not None:
                left = max(0., start + limit - time.monotonic())
                timeout = left if timeout is None else min(timeout, left)
            self._receive(timeout)
            if batch.outstanding and batch.error is None:
                if not warned:
                    warned = self._warn_if_stalled(time.monotonic() - start)
                self._fail_if_stalled(start, batch)

    def _until_error(self, start: float) -> Optional[float]:
        # Seconds left before a wait that began at start fails (None: no limit).
        limit = self.dataset_error_timeout
        return None if limit is None else max(0., start + limit - time.monotonic())

    def _fail_if_stalled(self, start: float, batch: Optional[_Batch]) -> None:
        # Past dataset_error_timeout: stop the workers (the next call starts new ones and
        # loads the batch again) and say so.
        seconds = time.monotonic() - start
        limit = self.dataset_error_timeout
        if limit is None or seconds < limit:
            return
        pids = [] if self._pool is None else self._pool.pids()
        self._stop()
        if batch is not None and batch.indices is not None:
            missing = [int(batch.indices[i]) for i, item in enumerate(batch.items)
                       if item is None]
            what = 'a batch (examples %s%s not received)' % (
                missing[:10], ' and %d more' % (len(missing) - 10) if len(missing) > 10 else '')
        else:
            what = 'the batches loading ahead'
        raise TimeoutError(
            'MultiprocessIterator: %s loaded for %.1f seconds, more than dataset_error_timeout '
            '(%s s): is a worker stuck in the dataset\'s __getitem__? Its worker processes %s '
            'were stopped; the next call starts new ones and loads the batch again'
            % (what, seconds, limit, pids))

    def _receive(self, timeout: Optional[float]) -> None:
        pool = self._pool
        assert pool is not None  # started before any batch is requested
        try:
            answers = pool.receive(timeout)
        except _process_pool.WorkerDied:
            self._stop()  # the next call starts new workers
            raise
        for answer in answers:
            self._accept(answer)

    def _warn_if_stalled(self, seconds: float) -> bool:
        if self.dataset_timeout is None or seconds < self.dataset_timeout:
            return False
        warnings.warn('MultiprocessIterator: a batch has been loading for %.1f seconds (more '
                      'than dataset_timeout); is the dataset stalled (e.g. a library using '
                      'threads in forked workers)?' % seconds, self.TimeoutWarning, stacklevel=4)
        return True

    def _accept(self, answer: tuple) -> None:
        kind, key, payload = answer
        batch = self._inflight.get(key)
        if batch is None:
            return
        batch.outstanding -= 1
        if kind == 'done':
            for pos, example, overflow in payload:
                batch.items[pos] = example
                batch.overflow |= overflow
        elif batch.error is None:
            batch.error = payload
        if not batch.outstanding:
            del self._inflight[key]
            if batch.stale:
                self._release(batch)

    def _release(self, batch: _Batch) -> None:
        if batch.slot is not None:
            self._free_slots.append(batch.slot)
            batch.slot = None

    def reset(self) -> None:
        """Starts the sweep again from its beginning (drawing a new order if it shuffles).

        Raises:
            NotImplementedError: If the iterator was finalized (as in Chainer).
        """
        if self._finalized:
            raise _finalized_error('reset')
        super().reset()

    def _set_state(self, state: _sweep.IteratorState, force: bool = False) -> None:
        # A new state makes the batches on their way useless; a batch still being written
        # keeps its region of the shared buffer until its last examples have arrived.
        if not force and _same_state(getattr(self, '_state', None), state):
            self._state = state
            return
        if self._finalized:
            raise _finalized_error('serialize')
        self._state = self._prefetch_state = state
        for batch in self._pending:
            batch.stale = True
            if not batch.outstanding:
                self._release(batch)
        self._pending.clear()

    def finalize(self) -> None:
        """Terminates the worker processes; the iterator cannot be used afterwards.

        Calling it again does nothing. ``next``, ``reset`` and loading a snapshot then raise
        ``NotImplementedError`` (Chainer's type for ``reset``); saving still works.
        """
        self._finalized = True
        self._stop()

    def _stop(self) -> None:
        if self._pool is None:
            return
        self._pool = None
        if self._finalizer is not None:
            self._finalizer()
        self._finalizer = None
        self._init_prefetch()
        self._prefetch_state = self._state

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the position, epoch, order and ``previous_epoch_detail``.

        The keys are Chainer's: ``current_position``, ``epoch``, ``is_new_epoch``, ``order``
        (absent without an order; ``_order`` is read from old snapshots) and
        ``previous_epoch_detail`` (guessed when an old snapshot lacks it). Loading a
        different state drops the batches loaded ahead.

        Args:
            serializer: A serializer or deserializer.
        """
        self._serialize_state(serializer, None)


def _finalized_error(method: str) -> NotImplementedError:
    return NotImplementedError(
        'MultiprocessIterator.%s: the iterator was finalized (its worker processes are gone) '
        'and cannot be used again; create a new one (copy.copy(iterator) gives one at the '
        'same position)' % method)


def _same_state(old: Optional[_sweep.IteratorState], new: _sweep.IteratorState) -> bool:
    if old is None or tuple(old[:3]) != tuple(new[:3]):
        return False
    if old.order is None or new.order is None:
        return old.order is None and new.order is None
    return old.order is new.order or numpy.array_equal(old.order, new.order)


# Chainer's prefetch pieces, under the names Chainer code imports from this module.
from chainlite.iterators._chainer_prefetch import (  # noqa: E402,F401
    _Communicator, _PackedNdarray, _PrefetchLoop, _fetch_run, _fetch_setup, _measure, _pack,
    _raise_timeout_warning, _report_pid, _unpack)
