"""Chainer's prefetching machinery of ``MultiprocessIterator``, for code that drives it.

Chainer's iterator keeps a thread (:class:`_PrefetchLoop`) that asks a ``multiprocessing``
pool for batches and hands them over through a :class:`_Communicator`; pool workers copy
the arrays of each example into shared memory (:func:`_pack`) and the thread copies them out
(:func:`_unpack`). chainlite's :class:`~chainlite.iterators.MultiprocessIterator` works
otherwise (:mod:`chainlite.iterators._process_pool`); these are Chainer's pieces under
Chainer's names (``chainer.iterators.multiprocess_iterator._Communicator`` and its
siblings), working as they do in Chainer.
"""
from __future__ import annotations

import datetime
import multiprocessing
import signal
import sys
import threading
import warnings
from multiprocessing import sharedctypes
from typing import Any, Optional

import numpy

from chainlite.iterators import _sweep

# How often (seconds) waiting threads look again at a terminate request.
_response_time = 0.1


def _raise_timeout_warning() -> None:
    """Warns ``MultiprocessIterator.TimeoutWarning``: the dataset seems stalled."""
    from chainlite.iterators import multiprocess_iterator
    warnings.warn('Stalled dataset is detected: a batch is taking longer than dataset_timeout '
                  'to load. A common cause is a library that starts threads before the '
                  'workers fork (see MultiprocessIterator\'s documentation)',
                  multiprocess_iterator.MultiprocessIterator.TimeoutWarning)


class _Communicator:
    """A bounded queue of prefetched batches between the iterator and the prefetch thread,
    with the iterator's reset and terminate requests."""

    STATUS_CONTINUE = 0
    STATUS_RESET = 1
    STATUS_TERMINATE = 2

    def __init__(self, n_prefetch: int, dataset_timeout: Optional[float]) -> None:
        self.n_prefetch = n_prefetch
        self.dataset_timeout = dataset_timeout
        self._lock = threading.Lock()
        self._not_empty_cond = threading.Condition(self._lock)
        self._not_full_cond = threading.Condition(self._lock)
        self._batch_queue: list = []
        self._status = self.STATUS_CONTINUE
        self._reset_count = 0
        self._prefetch_state: Any = None

    @property
    def is_terminated(self) -> bool:
        """Whether :meth:`terminate` was called."""
        with self._lock:
            return self._status == self.STATUS_TERMINATE

    def get(self) -> tuple:
        """(Iterator side) Waits for the next ``(batch, prefetch_state)``; warns
        ``TimeoutWarning`` while it waits past ``dataset_timeout`` seconds."""
        with self._lock:
            start = datetime.datetime.now()
            while not self._batch_queue:
                self._not_empty_cond.wait(_response_time)
                waited = (datetime.datetime.now() - start).total_seconds()
                if self.dataset_timeout is not None and waited > self.dataset_timeout:
                    _raise_timeout_warning()
            batch, prefetch_state = self._batch_queue.pop(0)
            self._not_full_cond.notify()
            return batch, prefetch_state

    def reset(self, prefetch_state: Any) -> None:
        """(Iterator side) Drops the queued batches; the thread restarts from the state."""
        with self._lock:
            self._status = self.STATUS_RESET
            self._prefetch_state = prefetch_state
            self._batch_queue = []
            self._not_full_cond.notify()
            self._reset_count += 1

    def terminate(self) -> None:
        """(Iterator side) Drops the queued batches and asks the thread to stop."""
        with self._lock:
            self._status = self.STATUS_TERMINATE
            self._batch_queue = []
            self._not_full_cond.notify()
            self._reset_count += 1

    def check(self) -> tuple:
        """(Thread side) Returns ``(status, prefetch_state, reset_count)`` and clears the
        request; ``prefetch_state`` is the reset's state, else None."""
        with self._lock:
            status, self._status = self._status, self.STATUS_CONTINUE
            state = self._prefetch_state if status == self.STATUS_RESET else None
            return status, state, self._reset_count

    def put(self, batch: Any, prefetch_state: Any, reset_count: int) -> None:
        """(Thread side) Queues a batch, waiting while the queue is full; a batch made
        before a later reset is dropped."""
        with self._lock:
            if len(self._batch_queue) == self.n_prefetch:
                self._not_full_cond.wait()
            if reset_count == self._reset_count:
                self._batch_queue.append((batch, prefetch_state))
                self._not_empty_cond.notify()


class _PrefetchLoop:
    """The prefetch thread: advances its own copy of the sweep and loads each batch with a
    process pool, through shared memory of ``mem_size`` bytes per example (measured from the
    first batch when None). Set ``prefetch_state`` (or reset the communicator) first."""

    _thread: Optional[threading.Thread] = None
    _pool: Any = None
    _terminating = False
    prefetch_state: Any = None

    def __init__(self, dataset: Any, batch_size: int, repeat: bool, n_processes: int,
                 n_prefetch: int, mem_size: Optional[int], comm: _Communicator,
                 order_sampler: Any, _interruption_testing: bool,
                 maxtasksperchild: Optional[int]) -> None:
        self.dataset = dataset
        self.batch_size = batch_size
        self.repeat = repeat
        self.n_processes = n_processes
        self.mem_size = mem_size
        self._comm = comm
        self.order_sampler = order_sampler
        self.maxtasksperchild = maxtasksperchild
        self._allocate_shared_memory()
        self._interruption_testing = _interruption_testing

    def terminate(self) -> None:
        """Stops the thread, then the pool."""
        self._terminating = True
        if self._thread is not None:
            while self._thread.is_alive():
                self._thread.join(_response_time)
        if self._pool is not None:
            self._pool.terminate()
        self._thread = None
        self._pool = None

    @property
    def thread(self) -> Optional[threading.Thread]:
        """The prefetch thread, once launched."""
        return self._thread

    def measure_required(self) -> bool:
        """Whether the shared memory size is still to be measured."""
        return self.mem_size is None

    def measure(self, dataset_timeout: Optional[float]) -> tuple:
        """Loads one batch in this process and sizes the shared memory from it.

        Returns:
            ``(batch, prefetch_state)``; the batch is None once the sweep is over.
        """
        status, prefetch_state, _ = self._comm.check()
        if status == _Communicator.STATUS_RESET:
            self.prefetch_state = prefetch_state
        self.prefetch_state, indices = _sweep.advance(
            self.prefetch_state, self.batch_size, self.repeat, self.order_sampler,
            len(self.dataset))
        if indices is None:
            return None, self.prefetch_state
        loaded: list = [None]

        def fetch_batch() -> None:
            loaded[0] = [self.dataset[i] for i in indices]

        if dataset_timeout is None:
            fetch_batch()
        else:
            thread = threading.Thread(target=fetch_batch, daemon=True)
            thread.start()
            thread.join(dataset_timeout)
            if thread.is_alive():
                _raise_timeout_warning()
            thread.join()
        batch = loaded[0]
        self.mem_size = max(map(_measure, batch))
        self._allocate_shared_memory()
        return batch, self.prefetch_state

    def _allocate_shared_memory(self) -> None:
        if self.mem_size is None:  # still to be measured
            self.mem_bulk = None
        else:
            self.mem_bulk = sharedctypes.RawArray('b', self.batch_size * self.mem_size)

    def launch_thread(self) -> threading.Thread:
        """Starts the pool and the prefetch thread; returns the thread."""
        self._pool = multiprocessing.Pool(
            processes=self.n_processes, initializer=_fetch_setup,
            initargs=(self.dataset, self.mem_size, self.mem_bulk),
            maxtasksperchild=self.maxtasksperchild)
        if self._interruption_testing:
            print(' '.join(map(str, self._pool.map(_report_pid, range(self.n_processes)))))
            sys.stdout.flush()
        self._thread = threading.Thread(target=self._run, name='prefetch_loop', daemon=True)
        self._thread.start()
        return self._thread

    def _run(self) -> None:
        try:
            while not self._terminating and self._task():
                pass
        finally:
            self._pool.close()
            self._pool.join()

    def _task(self) -> bool:
        # One batch; returns whether the loop goes on.
        status, prefetch_state, reset_count = self._comm.check()
        if status == _Communicator.STATUS_RESET:
            self.prefetch_state = prefetch_state
        elif status == _Communicator.STATUS_TERMINATE:
            return False
        self.prefetch_state, indices = _sweep.advance(
            self.prefetch_state, self.batch_size, self.repeat, self.order_sampler,
            len(self.dataset))
        batch = None
        if indices is not None:
            future = self._pool.map_async(_fetch_run, enumerate(indices))
            while True:
                try:
                    loaded = future.get(_response_time)
                    break
                except multiprocessing.TimeoutError:
                    if self._comm.is_terminated:
                        return False
            batch = [_unpack(data, self.mem_bulk) for data in loaded]
        self._comm.put(batch, self.prefetch_state, reset_count)
        return True


# The pool workers' copies of what _fetch_setup receives (module globals: bound methods do
# not pickle everywhere).
_fetch_dataset: Any = None
_fetch_mem_size: Any = None
_fetch_mem_bulk: Any = None


def _fetch_setup(dataset: Any, mem_size: Optional[int], mem_bulk: Any) -> None:
    """(Pool initializer) Keeps the dataset and the shared memory; ignores Ctrl-C."""
    global _fetch_dataset, _fetch_mem_size, _fetch_mem_bulk
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _fetch_dataset = dataset
    _fetch_mem_size = mem_size
    _fetch_mem_bulk = mem_bulk


def _fetch_run(inputs: tuple) -> Any:
    """(Pool task) Loads example ``index`` as the ``i``-th of its batch, its arrays packed
    into the batch's shared memory when there is some."""
    i, index = inputs
    data = _fetch_dataset[index]
    if _fetch_mem_bulk is not None:
        offset = i * _fetch_mem_size
        data = _pack(data, _fetch_mem_bulk, offset, offset + _fetch_mem_size)
    return data


def _report_pid(_: Any) -> int:
    """(Pool task, for tests) The worker's process id."""
    return multiprocessing.current_process().pid  # type: ignore[return-value]


class _PackedNdarray:
    """An array copied into shared memory: its place, shape and dtype."""

    def __init__(self, array: numpy.ndarray, mem: Any, offset: int) -> None:
        self.shape = array.shape
        self.dtype = array.dtype
        self.nbytes = array.nbytes
        self.size = array.size
        self.offset = offset
        total = offset + self.nbytes
        if total > len(mem):
            raise ValueError('Shared memory size is too small. expect:{}, actual:{}'
                             .format(total, len(mem)))
        numpy.frombuffer(mem, self.dtype, self.size, offset)[...] = array.ravel()

    def unpack(self, mem: Any) -> numpy.ndarray:
        """Returns a copy of the array out of ``mem``."""
        return numpy.frombuffer(mem, self.dtype, self.size, self.offset).reshape(
            self.shape).copy()


def _measure(data: Any) -> int:
    """The bytes of the arrays directly in an example that is a tuple, list or dict (0 for
    anything else, a bare array included, as in Chainer)."""
    kind = type(data)
    if kind is dict:
        data = data.values()
    elif kind is not tuple and kind is not list:
        return 0
    return sum(v.nbytes for v in data if isinstance(v, numpy.ndarray))


def _pack(data: Any, mem: Any, offset: int, limit: int) -> Any:
    """Copies the arrays of an example (itself, or directly in a tuple, list or dict) into
    ``mem[offset:limit]``, replacing each by a :class:`_PackedNdarray`; arrays that do not fit
    stay, with a warning."""
    if len(mem) == 0:
        return data
    over = False

    def put(v: Any) -> Any:
        nonlocal offset, over
        if not isinstance(v, numpy.ndarray):
            return v
        if v.nbytes + offset > limit:
            over = True
            return v
        packed = _PackedNdarray(v, mem, offset)
        offset += packed.nbytes
        return packed

    kind = type(data)
    if kind is tuple or kind is list:
        data = kind(put(v) for v in data)
    elif kind is dict:
        data = {k: put(v) for k, v in data.items()}
    elif kind is numpy.ndarray:
        data = put(data)
    if over:
        warnings.warn('Shared memory size is too small.\nPlease set shared_mem option for '
                      'MultiprocessIterator.\nExpect shared memory size: {} bytes.\nActual '
                      'shared memory size: {} bytes.'.format(_measure(data), limit - offset),
                      UserWarning)
    return data


def _unpack(data: Any, mem: Any) -> Any:
    """The inverse of :func:`_pack`: each :class:`_PackedNdarray` becomes its array again."""
    if mem is None or len(mem) == 0:
        return data

    def get(v: Any) -> Any:
        return v.unpack(mem) if isinstance(v, _PackedNdarray) else v

    kind = type(data)
    if kind is tuple or kind is list:
        return kind(get(v) for v in data)
    if kind is dict:
        return {k: get(v) for k, v in data.items()}
    return get(data)
