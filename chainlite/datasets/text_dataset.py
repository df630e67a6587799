"""TextDataset: the lines of text files, read on demand by line number."""
from __future__ import annotations

import os
import threading
from typing import Any, Callable, Sequence

from chainlite.dataset import dataset_mixin


def _per_file(value: Any, name: str, n_files: int) -> list:
    # An option given once applies to every file; a list gives one per file.
    if value is None or isinstance(value, str):
        return [value] * n_files
    value = list(value)
    if len(value) != n_files:
        raise ValueError('TextDataset: %s has %d values for %d files' % (name, len(value), n_files))
    return value


class TextDataset(dataset_mixin.DatasetMixin):
    """The lines of a text file, or the tuples of lines of several files, by line number.

    The constructor reads the files once to record where each line starts; an example is
    then read from disk when it is accessed (the line keeps its newline). Several files must
    have the same number of lines; their ``i``-th lines form the ``i``-th example. The files
    stay open until :meth:`close` (or until the dataset is garbage collected); reads are
    thread-safe. A pickled dataset reopens its files and reuses the recorded positions, so
    the files must not change in between.

    Args:
        paths: A path (the examples are strings) or a list of paths (the examples are tuples
            of strings, or strings for a list of one path).
        encoding: The encoding, as for :func:`open`, or a list of one per file.
        errors: How decoding errors are handled, as for :func:`open`, or a list of one per
            file.
        newline: How newlines are recognised, as for :func:`open`, or a list of one per file.
        filter_func: A function of the lines of one example (one argument per file) that
            returns True to keep the example; None keeps them all.

    Raises:
        ValueError: No paths, options of the wrong length, or files of different numbers of
            lines.

    Example:
        >>> import os, tempfile
        >>> from chainlite.datasets import TextDataset
        >>> path = os.path.join(tempfile.mkdtemp(), 'lines.txt')
        >>> with open(path, 'w') as f:
        ...     _ = f.write('first\\n# a comment\\nsecond\\n')
        >>> ds = TextDataset(path, filter_func=lambda line: not line.startswith('#'))
        >>> len(ds), ds[1], ds[:]
        (2, 'second\\n', ['first\\n', 'second\\n'])
        >>> ds.close()
    """

    def __init__(self, paths: str | os.PathLike | Sequence[str | os.PathLike],
                 encoding: str | Sequence[str] | None = None,
                 errors: str | Sequence[str] | None = None,
                 newline: str | Sequence[str] | None = None,
                 filter_func: Callable[..., bool] | None = None) -> None:
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        else:
            paths = list(paths)
            if not paths:
                raise ValueError('TextDataset: at least one text file must be given')
        n = len(paths)
        self._paths = paths
        self._encoding = _per_file(encoding, 'encoding', n)
        self._errors = _per_file(errors, 'errors', n)
        self._newline = _per_file(newline, 'newline', n)
        self._fps: list = []
        self._open()
        # _bounds[k][j]: where line j of file k starts; _lines: the line numbers kept.
        bounds: list = [[0] for _ in self._fps]
        lines = []
        linenum = 0
        while True:
            data = [fp.readline() for fp in self._fps]
            if not all(data):
                if any(data):
                    self.close()
                    raise ValueError('TextDataset: the files have different numbers of lines '
                                     '(%s)' % ', '.join(map(str, self._paths)))
                break
            for k, fp in enumerate(self._fps):
                bounds[k].append(fp.tell())
            if filter_func is None or filter_func(*data):
                lines.append(linenum)
            linenum += 1
        self._bounds = bounds
        self._lines = lines
        self._lock = threading.Lock()

    def _open(self) -> None:
        fps = []
        try:
            for path, encoding, errors, newline in zip(self._paths, self._encoding,
                                                       self._errors, self._newline):
                fps.append(open(path, 'r', encoding=encoding, errors=errors, newline=newline))
        except BaseException:
            for fp in fps:
                fp.close()
            raise
        self._fps = fps

    def close(self) -> None:
        """Closes the files (reading an example afterwards raises :class:`ValueError`).

        Every file is closed even if closing one fails; the first error is raised afterwards.
        """
        error = None
        for fp in getattr(self, '_fps', ()):
            try:
                fp.close()
            except Exception as e:
                if error is None:
                    error = e
        if error is not None:
            raise error

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass  # nothing can handle an error raised while the dataset is collected

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state['_fps'], state['_lock']
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._open()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._lines)

    def get_example(self, i: int) -> Any:
        if not 0 <= i < len(self._lines):
            raise IndexError('TextDataset index %d out of range for length %d'
                             % (i, len(self._lines)))
        linenum = self._lines[i]
        with self._lock:
            lines = []
            for k, fp in enumerate(self._fps):
                fp.seek(self._bounds[k][linenum])
                lines.append(fp.readline())
        if len(lines) == 1:
            return lines[0]
        return tuple(lines)
