"""Datasets of pickled Python objects in one file, read at random positions (Chainer's).

.. warning::
    Reading a pickle runs code chosen by whoever wrote the file. :class:`PickleDataset`
    unpickles, since that is its job (it is the one place in chainlite that does, and only
    on a file the user names): open only files you made yourself or trust as you would trust
    a Python script. Python's :mod:`pickle` documentation says the same. For arrays, prefer
    :func:`numpy.savez` with :class:`~chainlite.datasets.TupleDataset`, or NPZ files read
    with ``allow_pickle=False``.

A :class:`PickleDatasetWriter` appends one pickled object per :meth:`~PickleDatasetWriter.write`;
a :class:`PickleDataset` finds where each object starts and unpickles the ``i``-th on
``dataset[i]``, so a data set larger than memory can be read in any order. After a fork
(``MultiprocessIterator``), a dataset opened by :func:`open_pickle_dataset` reopens its file
in the child, so that processes do not share one file position.
"""
from __future__ import annotations

import contextlib
import io
import multiprocessing.util
import os
import pickle
import threading
from typing import IO, Any, cast

from chainlite.dataset import dataset_mixin
from chainlite.serializers import _atomic

__all__ = ['PickleDatasetWriter', 'PickleDataset', 'open_pickle_dataset',
           'open_pickle_dataset_writer']


class PickleDatasetWriter:
    """Writes objects, one pickle each, to make a :class:`PickleDataset`.

    Args:
        writer: A binary file-like object with ``write`` and ``tell``.
        protocol: The :mod:`pickle` protocol.

    Example:
        >>> import io
        >>> from chainlite import datasets
        >>> f = io.BytesIO()
        >>> w = datasets.PickleDatasetWriter(f)
        >>> w.write((1, 'one')); w.write((2, 'two'))
        >>> len(datasets.PickleDataset(f))
        2
    """

    def __init__(self, writer: IO[bytes], protocol: int = pickle.HIGHEST_PROTOCOL) -> None:
        self._writer = writer
        self._protocol = protocol
        self._positions: list[int] = []

    def write(self, x: Any) -> None:
        """Appends ``x`` (any picklable object) as the next example."""
        self._positions.append(self._writer.tell())
        pickle.dump(x, self._writer, protocol=self._protocol)

    def flush(self) -> None:
        """Flushes the underlying file, where it can be flushed."""
        flush = getattr(self._writer, 'flush', None)
        if flush is not None:
            flush()

    def close(self) -> None:
        """Closes the underlying file."""
        self._writer.close()

    def __enter__(self) -> 'PickleDatasetWriter':
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


class _AtomicWriter(PickleDatasetWriter):
    # The writer of open_pickle_dataset_writer: the objects go to a temporary file beside
    # the path, renamed onto it by close(); leaving a ``with`` block by an exception keeps
    # the previous file and removes the temporary one.

    def __init__(self, path: str, protocol: int) -> None:
        self._stack = contextlib.ExitStack()
        tmp = self._stack.enter_context(_atomic.replacing(path))
        super().__init__(self._stack.enter_context(open(tmp, 'wb')), protocol)

    def close(self) -> None:
        self._stack.close()

    def __exit__(self, *exc_info: Any) -> None:
        if exc_info[0] is None:
            self.close()
        else:
            self._stack.__exit__(*exc_info)


class PickleDataset(dataset_mixin.DatasetMixin):
    """A dataset of the objects pickled one after another in a file.

    Opening it reads the whole file once (unpickling each object) to find where each starts;
    ``dataset[i]`` then seeks there and unpickles the ``i``-th object again. Read only files
    you trust: unpickling runs code chosen by the file's author (see the module's warning).

    Args:
        reader: A binary file-like object that supports random access (``seekable()``).

    Raises:
        ValueError: If ``reader`` cannot seek.

    Example:
        >>> import os, tempfile
        >>> from chainlite import datasets
        >>> with tempfile.TemporaryDirectory() as d:
        ...     path = os.path.join(d, 'data.pkl')
        ...     with datasets.open_pickle_dataset_writer(path) as w:
        ...         w.write((1, 2.0, 'hello'))
        ...         w.write((2, 3.0, 'good-bye'))
        ...     with datasets.open_pickle_dataset(path) as dataset:
        ...         print(len(dataset), dataset[1])
        2 (2, 3.0, 'good-bye')
    """

    def __init__(self, reader: IO[bytes]) -> None:
        if not reader.seekable():
            raise ValueError('PickleDataset: reader must support random access (seekable() '
                             'is False for %r)' % (reader,))
        self._reader = reader
        self._positions: list[int] = []
        reader.seek(0)
        while True:
            position = reader.tell()
            try:
                pickle.load(reader)
            except EOFError:
                break
            self._positions.append(position)
        self._lock = threading.RLock()
        self._register_hook()

    def _register_hook(self) -> None:
        multiprocessing.util.register_after_fork(self, PickleDataset._after_fork)

    def _after_fork(self) -> None:
        after_fork = getattr(self._reader, 'after_fork', None)
        if callable(after_fork):
            after_fork()

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state['_lock']
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.RLock()
        self._register_hook()

    def __len__(self) -> int:
        return len(self._positions)

    def get_example(self, i: int) -> Any:
        """Unpickles the ``i``-th object of the file."""
        with self._lock:
            self._reader.seek(self._positions[i])
            return pickle.load(self._reader)

    def close(self) -> None:
        """Closes the file; the dataset cannot be read afterwards."""
        with self._lock:
            self._reader.close()

    def __enter__(self) -> 'PickleDataset':
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


class _FileReader(io.RawIOBase):
    # A binary file that reopens itself in a forked child (after_fork) and after unpickling,
    # so that processes reading one dataset do not move each other's file position.

    def __init__(self, path: str) -> None:
        super().__init__()
        self._path = path
        self._fp = open(path, 'rb')

    def after_fork(self) -> None:
        self._fp.close()
        self._fp = open(self._path, 'rb')

    def __getstate__(self) -> dict:
        return {'_path': self._path}

    def __setstate__(self, state: dict) -> None:
        self._path = state['_path']
        self._fp = open(self._path, 'rb')

    def close(self) -> None:
        self._fp.close()
        super().close()

    def fileno(self) -> int:
        return self._fp.fileno()

    def seekable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return self._fp.seek(offset, whence)

    def tell(self) -> int:
        return self._fp.tell()

    def readinto(self, b: Any) -> int:
        return self._fp.readinto(b)


def open_pickle_dataset(path: str | os.PathLike) -> PickleDataset:
    """Opens the :class:`PickleDataset` stored at ``path`` (close it, or use ``with``).

    Unpickling runs code chosen by the file's author: open only files you trust.

    Args:
        path: The file written by :func:`open_pickle_dataset_writer`.

    Returns:
        The dataset, reading ``path`` (reopened in forked worker processes).
    """
    return PickleDataset(cast(IO[bytes], _FileReader(os.fspath(path))))


def open_pickle_dataset_writer(path: str | os.PathLike,
                               protocol: int = pickle.HIGHEST_PROTOCOL) -> PickleDatasetWriter:
    """Opens a writer that makes a :class:`PickleDataset` file at ``path``.

    The file is written atomically: the objects go to a temporary file beside ``path``,
    renamed onto it when the writer is closed (or its ``with`` block ends); a block left by
    an exception keeps the previous file and removes the temporary one.

    Args:
        path: Where the dataset is written.
        protocol: The :mod:`pickle` protocol.

    Returns:
        The writer; close it, or use it in a ``with`` statement.
    """
    return _AtomicWriter(os.fspath(path), protocol)
