"""Snapshot writers: how (and on which thread or process) :func:`snapshot` saves a file.

Every writer saves through :meth:`Writer.save`: the save function writes a temporary file
beside the target, which is renamed onto the target only once it is complete. A save that
fails or is interrupted therefore never leaves a truncated snapshot under the real name, and
the previous snapshots are untouched.

A writer's process (:class:`ProcessWriter`, :class:`ProcessQueueWriter`) ends with the process
that started it, however that ends (on Linux the kernel kills it at once), and skips the
post-save hooks (deleting old snapshots) once that process is gone: a killed trainer's writer
never deletes snapshots that others may be reading.
"""
from __future__ import annotations

import multiprocessing
import os
import queue
import threading
import traceback
from typing import Any, Callable, Optional

from chainlite.iterators import _lifeline
from chainlite.serializers import _atomic
from chainlite.serializers import npz


class Writer:
    """Base class of snapshot writers.

    The snapshot extension calls the writer with a file name, the output directory and the
    serialized target (a dictionary of arrays). Subclasses decide where :meth:`save` runs.

    Example:
        >>> import os, tempfile, numpy as np
        >>> from chainlite.training.extensions import snapshot_writers
        >>> out = tempfile.mkdtemp()
        >>> writer = snapshot_writers.SimpleWriter()
        >>> writer('snapshot_iter_1', out, {'W': np.zeros(2)})
        >>> os.listdir(out)
        ['snapshot_iter_1']
    """

    def __init__(self) -> None:
        self._post_save_hooks: list = []

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        """Saves ``target`` as ``outdir/filename``.

        Args:
            filename: The file name (already formatted).
            outdir: The output directory (the trainer's ``out``).
            target: The serialized object, a dictionary of arrays.
        """
        raise NotImplementedError('%s must implement __call__' % type(self).__name__)

    def __del__(self) -> None:
        try:
            self.finalize()
        except Exception:  # an interpreter shutting down may have lost threading already
            pass

    def finalize(self) -> None:
        """Waits for pending saves; called when the training loop ends."""

    def save(self, filename: str, outdir: str, target: Any, savefun: Callable[..., Any],
             **kwds: Any) -> None:
        """Saves ``target`` atomically with ``savefun``, then runs the post-save hooks.

        ``savefun(path, target, **kwds)`` writes to a temporary path in ``outdir``, which is
        renamed onto ``outdir/filename`` only if it returns normally.

        Args:
            filename: The file name (may contain sub-directories, created as needed).
            outdir: The output directory.
            target: The serialized object.
            savefun: The function writing the file, e.g. :func:`chainlite.serializers.save_npz`.
            **kwds: More keyword arguments for ``savefun``.

        Raises:
            RuntimeError: If ``savefun`` returned without writing to the path it was given.
        """
        path = os.path.join(outdir, filename)
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with _atomic.replacing(path) as tmp:
            savefun(tmp, target, **kwds)
            if not os.path.isfile(tmp):
                raise RuntimeError(
                    '%s: the save function %s wrote no file at the path it was given (%r); '
                    'it must write exactly there (numpy.savez, e.g., appends ".npz")'
                    % (type(self).__name__, getattr(savefun, '__name__', savefun), tmp))
        self._post_save()

    def _add_cleanup_hook(self, hook_fun: Callable[[], None]) -> None:
        # Called after each successful save (snapshot's n_retains deletes old files there).
        if hook_fun not in self._post_save_hooks:
            self._post_save_hooks.append(hook_fun)

    def _post_save(self) -> None:
        for hook in self._post_save_hooks:
            if not _lifeline.parent_alive():
                return  # a writer process whose trainer is gone leaves the files alone
            hook()


def _in_child(parent: tuple[Optional[int], bool], func: Callable[..., Any], /, *args: Any,
              **kwargs: Any) -> Any:
    # The target of a writer's process: it ends with its parent, then runs func.
    _lifeline.die_with_parent(parent)
    return func(*args, **kwargs)


class SimpleWriter(Writer):
    """Saves on the calling thread, during the training loop.

    Args:
        savefun: ``savefun(path, target, **kwds)`` writes the file;
            :func:`chainlite.serializers.save_npz` by default.
        **kwds: Keyword arguments for ``savefun`` (e.g. ``compression=False``).

    Example:
        >>> import tempfile, numpy as np
        >>> from chainlite.training.extensions import snapshot_writers
        >>> out = tempfile.mkdtemp()
        >>> snapshot_writers.SimpleWriter(compression=False)('s', out, {'x': np.ones(1)})
        >>> np.load(out + '/s')['x']
        array([1.])
    """

    def __init__(self, savefun: Callable[..., Any] = npz.save_npz, **kwds: Any) -> None:
        super().__init__()
        self._savefun = savefun
        self._kwds = kwds

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        self.save(filename, outdir, target, self._savefun, **self._kwds)


class StandardWriter(Writer):
    """Base class of writers that start one worker (thread or process) per snapshot.

    A new snapshot first waits for the previous worker. An error in a worker is raised on
    the next call or in :meth:`finalize` rather than lost.

    Args:
        savefun: The function writing the file; ``save_npz`` by default.
        **kwds: Keyword arguments for ``savefun``.
    """

    def __init__(self, savefun: Callable[..., Any] = npz.save_npz, **kwds: Any) -> None:
        super().__init__()
        self._savefun = savefun
        self._kwds = kwds
        self._worker: Any = None
        self._error: Optional[BaseException] = None

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        self._join()
        self._worker = self.create_worker(filename, outdir, target, **self._kwds)
        self._worker.start()

    def create_worker(self, filename: str, outdir: str, target: Any, **kwds: Any) -> Any:
        """Returns an unstarted worker (with ``start`` and ``join``) that saves ``target``.

        Args:
            filename: The file name.
            outdir: The output directory.
            target: The serialized object.
            **kwds: Keyword arguments for the save function.
        """
        raise NotImplementedError('%s must implement create_worker' % type(self).__name__)

    def _join(self) -> None:
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.join()
            exitcode = getattr(worker, 'exitcode', 0)
            if isinstance(exitcode, int) and exitcode != 0:
                raise RuntimeError('%s: the process saving the snapshot failed (exit code %s)'
                                   % (type(self).__name__, exitcode))
        error, self._error = self._error, None
        if error is not None:
            raise error

    def finalize(self) -> None:
        """Waits for the running save, raising its error if it failed."""
        self._join()


class ThreadWriter(StandardWriter):
    """Saves each snapshot in a new thread, so that training goes on while it is written.

    Args:
        savefun: The function writing the file; ``save_npz`` by default.
        **kwds: Keyword arguments for ``savefun``.
    """

    def create_worker(self, filename: str, outdir: str, target: Any,
                      **kwds: Any) -> threading.Thread:
        def run() -> None:
            try:
                self.save(filename, outdir, target, self._savefun, **kwds)
            except BaseException as e:
                self._error = e
        return threading.Thread(target=run)


class ProcessWriter(StandardWriter):
    """Saves each snapshot in a new process.

    The post-save hooks (deleting old snapshots) run in that process too, only while the
    process that started it is alive; the process ends with that process.

    Args:
        savefun: The function writing the file; ``save_npz`` by default.
        **kwds: Keyword arguments for ``savefun``.
    """

    def create_worker(self, filename: str, outdir: str, target: Any,
                      **kwds: Any) -> multiprocessing.Process:
        return multiprocessing.Process(
            target=_in_child,
            args=(_lifeline.token(), self.save, filename, outdir, target, self._savefun),
            kwargs=kwds)


class QueueWriter(Writer):
    """Base class of writers whose single consumer (thread or process) takes saves from a queue.

    The post-save hooks run in the consumer after each save (for a process, they must be
    picklable).

    Args:
        savefun: The function writing the file, used to make the task if ``task`` is None.
        task: A callable taking ``(filename, outdir, target)``; a :class:`SimpleWriter` of
            ``savefun`` by default.
    """

    def __init__(self, savefun: Callable[..., Any] = npz.save_npz,
                 task: Optional[Callable[..., Any]] = None) -> None:
        super().__init__()
        self._error: Optional[BaseException] = None
        self._task = self.create_task(savefun) if task is None else task
        self._queue = self.create_queue()
        self._consumer = self.create_consumer(self._queue)
        self._consumer.start()
        self._finalized = False

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        if self._finalized:
            raise RuntimeError('%s: the writer was finalized' % type(self).__name__)
        # The hooks travel with each item: a consumer process was forked before they were added.
        self._queue.put((self._task, filename, outdir, target, tuple(self._post_save_hooks)))

    def create_task(self, savefun: Callable[..., Any]) -> Callable[..., Any]:
        """Returns the callable that saves one snapshot (a :class:`SimpleWriter`)."""
        return SimpleWriter(savefun=savefun)

    def create_queue(self) -> Any:
        """Returns the queue (with ``put``, ``get``, ``task_done`` and ``join``)."""
        raise NotImplementedError('%s must implement create_queue' % type(self).__name__)

    def create_consumer(self, q: Any) -> Any:
        """Returns the unstarted worker that runs :meth:`consume` on ``q``."""
        raise NotImplementedError('%s must implement create_consumer' % type(self).__name__)

    def consume(self, q: Any) -> None:
        """Runs the queued saves until a None arrives.

        A failed save does not stop the consumer: the first error is kept (and raised by
        :meth:`finalize` of a thread-based writer) and printed to stderr.
        """
        while True:
            item = q.get()
            try:
                if item is None:
                    return
                # (task, filename, outdir, target[, hooks]): Chainer's items have no hooks.
                item[0](item[1], item[2], item[3])
                hooks = item[4] if len(item) > 4 else ()
                for hook in hooks:
                    if not _lifeline.parent_alive():
                        break  # a consumer process whose trainer is gone leaves the files
                    hook()
            except Exception as e:
                if self._error is None:
                    self._error = e
                traceback.print_exc()
            finally:
                q.task_done()

    def finalize(self) -> None:
        """Waits until the queued saves are done and stops the consumer.

        Raises:
            Exception: The first error of a failed save (thread-based writers).
        """
        if not getattr(self, '_finalized', True):
            self._finalized = True
            self._queue.put(None)
            self._queue.join()
            self._consumer.join()
        error, self._error = getattr(self, '_error', None), None
        if error is not None:
            raise error


class ThreadQueueWriter(QueueWriter):
    """Saves snapshots one after another in a single background thread.

    Args:
        savefun: The function writing the file; ``save_npz`` by default.
        task: A callable taking ``(filename, outdir, target)``, instead of ``savefun``.
    """

    def create_queue(self) -> queue.Queue:
        return queue.Queue()

    def create_consumer(self, q: Any) -> threading.Thread:
        return threading.Thread(target=self.consume, args=(q,), daemon=True)


class ProcessQueueWriter(QueueWriter):
    """Saves snapshots one after another in a single background process.

    The process ends with the process that started it, and runs the post-save hooks only
    while that process is alive.

    Args:
        savefun: The function writing the file; ``save_npz`` by default.
        task: A callable taking ``(filename, outdir, target)``, instead of ``savefun``.
    """

    def create_queue(self) -> Any:
        return multiprocessing.JoinableQueue()

    def create_consumer(self, q: Any) -> multiprocessing.Process:
        return multiprocessing.Process(target=_in_child,
                                       args=(_lifeline.token(), self.consume, q))
