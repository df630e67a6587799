"""The worker processes of MultiprocessIterator and how examples travel through shared memory.

The main process puts tasks (a run of one batch's indices) on one queue; each worker answers
on a pipe of its own. The main process waits on those pipes *and* on the workers' process
sentinels, so a worker that dies is noticed at once instead of leaving a batch unfinished
forever. Each worker ends with the main process, however that ends (:mod:`._lifeline`): no
worker outlives it, even one stuck in a dataset's ``__getitem__``. A worker writes the
arrays of an example (the example itself, or the arrays at the top level of a tuple, list or
dict) into its batch's region of a shared buffer and sends only their places; anything else
is pickled through the pipe.
"""
from __future__ import annotations

import multiprocessing
import pickle
import signal
import traceback
from multiprocessing import connection
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Optional

import numpy

from chainlite.iterators import _lifeline

if TYPE_CHECKING:
    from chainlite.dataset.dataset_mixin import DatasetLike

# How long a terminated worker may take to exit before it is killed (seconds).
_TERMINATE_S = 1.0


class SharedArray(NamedTuple):
    """Where an example's array lies in the shared buffer."""

    offset: int
    nbytes: int
    shape: tuple
    dtype: numpy.dtype


def _shareable(value: Any) -> bool:
    return type(value) is numpy.ndarray and not value.dtype.hasobject


def _map_top_level(example: Any, fn: Callable[[Any], Any]) -> Any:
    kind = type(example)
    if kind is tuple or kind is list:
        return kind(fn(v) for v in example)
    if kind is dict:
        return {k: fn(v) for k, v in example.items()}
    return fn(example)


def measure(example: Any) -> int:
    """Returns the bytes of shared memory that the arrays of ``example`` need."""
    total = [0]

    def count(value: Any) -> Any:
        if _shareable(value):
            total[0] += value.nbytes
        return value

    _map_top_level(example, count)
    return total[0]


def pack(example: Any, buffer: numpy.ndarray, start: int, size: int) -> tuple[Any, bool]:
    """Copies the arrays of ``example`` into ``buffer[start:start + size]``.

    Returns:
        The example with :class:`SharedArray` places instead of the copied arrays, and whether
        an array did not fit (it stays in the example, to be pickled).
    """
    offset, limit, overflow = start, start + size, [False]

    def put(value: Any) -> Any:
        nonlocal offset
        if not _shareable(value):
            return value
        if offset + value.nbytes > limit:
            overflow[0] = True
            return value
        target = buffer[offset:offset + value.nbytes].view(value.dtype).reshape(value.shape)
        target[...] = value
        place = SharedArray(offset, value.nbytes, value.shape, value.dtype)
        offset += value.nbytes
        return place

    return _map_top_level(example, put), overflow[0]


def unpack(example: Any, buffer: numpy.ndarray) -> Any:
    """Replaces the :class:`SharedArray` places in ``example`` by copies of their arrays."""

    def get(value: Any) -> Any:
        if type(value) is not SharedArray:
            return value
        raw = buffer[value.offset:value.offset + value.nbytes]
        return raw.view(value.dtype).reshape(value.shape).copy()

    return _map_top_level(example, get)


class RemoteTraceback(Exception):
    """The traceback of an exception raised in a worker (shown as the cause)."""

    def __str__(self) -> str:
        return self.args[0]


class RemoteError:
    """An exception raised in a worker, in a form that always pickles."""

    def __init__(self, error: BaseException, index: Any) -> None:
        self.index = index
        self.type_name = type(error).__qualname__
        self.message = str(error)
        self.traceback = ''.join(traceback.format_exception(error))
        try:
            self.pickled: Optional[bytes] = pickle.dumps(error)
        except Exception:
            self.pickled = None

    def rebuild(self) -> BaseException:
        """Returns the original exception (or a RuntimeError naming it), with its traceback."""
        error = None
        if self.pickled is not None:
            try:
                error = pickle.loads(self.pickled)
            except Exception:
                error = None
        if not isinstance(error, BaseException):
            error = RuntimeError('%s: %s' % (self.type_name, self.message))
        error.__cause__ = RemoteTraceback('\n"""\n%s"""' % self.traceback)
        if self.index is None:
            where = 'while sending examples to the main process'
        else:
            where = 'while loading example %r' % (self.index,)
        error.add_note('(raised in a MultiprocessIterator worker process %s)' % where)
        return error


class WorkerDied(RuntimeError):
    """A worker process exited while it had work, or its answer could not be read."""


def _work(dataset: DatasetLike, tasks: Any, results: Any, shared: Any, mem_size: int,
          maxtasks: Optional[int], parent: tuple[Optional[int], bool]) -> None:
    """The loop of a worker process: load the examples of each task and send them back."""
    _lifeline.die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's business
    buffer = None if shared is None else numpy.frombuffer(shared, numpy.uint8)
    done = 0
    while maxtasks is None or done < maxtasks:
        task = tasks.get()
        if task is None:
            return
        key, base, start, indices = task
        done += 1
        index = None
        try:
            loaded = []
            for pos, index in enumerate(indices, start):
                example = dataset[index]
                overflow = False
                if buffer is not None:
                    example, overflow = pack(example, buffer, base + pos * mem_size, mem_size)
                loaded.append((pos, example, overflow))
            index = None
            results.send(('done', key, loaded))
        except BaseException as e:
            results.send(('error', key, RemoteError(e, None if index is None else int(index))))


class _Worker:
    """One worker process and the pipe it answers on."""

    def __init__(self, process: Any, reader: Any) -> None:
        self.process = process
        self.reader = reader
        self.at_eof = False


class ProcessPool:
    """The worker processes of one MultiprocessIterator.

    Args:
        dataset: The dataset (inherited by forked workers, pickled for spawned ones).
        n_processes: The number of workers.
        shared: The shared buffer (a ``multiprocessing`` RawArray), or None.
        mem_size: The bytes of the buffer given to each example.
        maxtasks: Tasks after which a worker exits and is replaced; None for no limit.
    """

    def __init__(self, dataset: DatasetLike, n_processes: int, shared: Any, mem_size: int,
                 maxtasks: Optional[int]) -> None:
        self._context = multiprocessing.get_context()
        self._args = (dataset, shared, mem_size, maxtasks)
        self._maxtasks = maxtasks
        self._tasks = self._context.Queue()
        # The queue's feeder thread must never keep the interpreter from exiting.
        self._tasks.cancel_join_thread()
        self._workers: list[_Worker] = []
        self._closed = False
        try:
            for _ in range(n_processes):
                self._workers.append(self._start_worker())
        except BaseException:
            self.close()
            raise

    def _start_worker(self) -> _Worker:
        dataset, shared, mem_size, maxtasks = self._args
        reader, writer = self._context.Pipe(duplex=False)
        process = self._context.Process(
            target=_work, args=(dataset, self._tasks, writer, shared, mem_size, maxtasks,
                                _lifeline.token(self._context)),
            name='MultiprocessIterator-worker', daemon=True)
        try:
            process.start()
        finally:
            writer.close()  # the worker's copy is its only one: its exit gives end of file
        return _Worker(process, reader)

    def pids(self) -> list[int]:
        """The process ids of the workers."""
        return [w.process.pid for w in self._workers]

    def submit(self, key: int, base: Optional[int], start: int, indices: numpy.ndarray) -> None:
        """Queues the loading of ``indices``, the examples ``start, start + 1, ...`` of a batch."""
        self._tasks.put((key, base, start, indices))

    def receive(self, timeout: Optional[float]) -> list:
        """Waits up to ``timeout`` seconds (None: no limit) and returns the answers that came.

        Raises:
            WorkerDied: A worker exited unexpectedly, or sent an answer that cannot be read.
        """
        readers = {w.reader: w for w in self._workers if not w.at_eof}
        sentinels = {w.process.sentinel: w for w in self._workers}
        ready = connection.wait(list(readers) + list(sentinels), timeout)
        answers = []
        for obj in ready:
            if obj in readers:
                answers.extend(self._drain(readers[obj]))
        for obj in ready:
            if obj in sentinels:
                worker = sentinels[obj]
                answers.extend(self._drain(worker))
                self._retire(worker)
        return answers

    def _drain(self, worker: _Worker) -> list:
        answers = []
        while not worker.at_eof:
            try:
                if not worker.reader.poll():
                    break
                answers.append(worker.reader.recv())
            except (EOFError, OSError):
                worker.at_eof = True
            except Exception as e:
                raise WorkerDied('MultiprocessIterator: an answer of worker process %d could not '
                                 'be unpickled: %s: %s' % (worker.process.pid,
                                                           type(e).__name__, e)) from e
        return answers

    def _retire(self, worker: _Worker) -> None:
        worker.process.join()
        code = worker.process.exitcode
        if code != 0 or self._maxtasks is None:
            if code is not None and code < 0:
                try:
                    how = 'was killed by signal %s' % signal.Signals(-code).name
                except ValueError:
                    how = 'was killed by signal %d' % -code
            else:
                how = 'exited with code %s' % code
            raise WorkerDied(
                'MultiprocessIterator: worker process %d %s while loading examples (out of '
                'memory, or a crash in the dataset or a library it uses?)'
                % (worker.process.pid, how))
        # It reached maxtasksperchild after sending all its answers: replace it.
        worker.reader.close()
        self._workers[self._workers.index(worker)] = self._start_worker()

    def close(self) -> None:
        """Terminates the workers (killing those that do not exit); may be called twice."""
        if self._closed:
            return
        self._closed = True
        for worker in self._workers:
            if worker.process.exitcode is None:
                worker.process.terminate()
        for worker in self._workers:
            worker.process.join(_TERMINATE_S)
            if worker.process.exitcode is None:
                worker.process.kill()
                worker.process.join()
            worker.reader.close()
        self._workers = []
        self._tasks.close()
