"""Snapshots of the trainer (or of any object) during training, and resuming from them.

Each snapshot is written under a temporary name and renamed once complete (see
:mod:`~chainlite.training.extensions.snapshot_writers`), so the newest file under the real
name is always whole: a crash while saving leaves the previous snapshots as they were.
"""
from __future__ import annotations

import contextlib
import os
import re
import string
import warnings
import zipfile
import zlib
from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional, Union

import numpy

from chainlite.iterators import _lifeline
from chainlite.serializers import npz
from chainlite.training import extension
from chainlite.training.extensions import snapshot_writers

if TYPE_CHECKING:
    from chainlite.training.trainer import Trainer

Filename = Union[str, Callable[[Any], str]]


def _always_true() -> bool:
    return True


def _natural_key(name: str) -> list:
    # 'snapshot_iter_10' after 'snapshot_iter_9' when two files share a modification time.
    return [(0, int(part), '') if part.isdigit() else (1, 0, part)
            for part in re.split(r'(\d+)', name)]


def _name_pattern(fmt: str) -> re.Pattern:
    """A regular expression matching the names ``fmt.format(...)`` can produce."""
    pattern = ''
    for literal, field, _, _ in string.Formatter().parse(fmt):
        pattern += re.escape(literal)
        if field is not None:
            pattern += '.+'
    return re.compile(pattern)


def _find_snapshot_files(fmt: str, outdir: str) -> list:
    """The existing files named after ``fmt`` in ``outdir``, oldest first.

    Returns ``(mtime, relative path)`` pairs (Chainer's layout), ordered by modification
    time, then by name with numbers compared as numbers. Temporary files of unfinished saves
    (hidden, ending with ``.tmp``) are never listed.
    """
    subdir, base = os.path.split(fmt)
    directory = os.path.join(outdir, subdir)
    if not os.path.isdir(directory):
        return []
    pattern = _name_pattern(base)
    found = []
    for name in os.listdir(directory):
        if name.startswith('.') and name.endswith('.tmp') and not base.startswith('.'):
            continue
        path = os.path.join(directory, name)
        if pattern.fullmatch(name) and os.path.isfile(path):
            st = os.stat(path)
            found.append((st.st_mtime_ns, _natural_key(name), st.st_mtime, name))
    found.sort()
    return [(mtime, os.path.join(subdir, name)) for _, _, mtime, name in found]


def _find_latest_snapshot(fmt: str, outdir: str) -> Optional[str]:
    """The newest file named after ``fmt`` in ``outdir`` (a relative path), or None."""
    files = _find_snapshot_files(fmt, outdir)
    return files[-1][1] if files else None


def _find_stale_snapshots(fmt: str, outdir: str, n_retains: int,
                          **kwargs: Any) -> Iterator[str]:
    """Yields the files named after ``fmt`` in ``outdir`` but the ``n_retains`` newest.

    ``num_retain`` is Chainer's deprecated name of ``n_retains`` (it warns).
    """
    if 'num_retain' in kwargs:
        warnings.warn('snapshot: num_retain is deprecated; use n_retains',
                      DeprecationWarning, stacklevel=2)
        n_retains = kwargs.pop('num_retain')
    if kwargs:
        raise TypeError('_find_stale_snapshots: unexpected keyword argument(s) %s'
                        % sorted(kwargs))
    files = _find_snapshot_files(fmt, outdir)
    for _, name in files[:max(len(files) - n_retains, 0)]:
        yield name


def _is_complete_npz(path: str) -> bool:
    """Whether ``path`` is a readable zip archive whose members all pass their CRC check."""
    try:
        with zipfile.ZipFile(path) as archive:
            return archive.testzip() is None
    except (OSError, EOFError, zipfile.BadZipFile, zlib.error, ValueError):
        return False


class _Snapshot(extension.Extension):
    """The extension :func:`snapshot` and :func:`snapshot_object` return (see there).

    Attributes:
        filename: The file name template (or a callable of the trainer).
        condition: Called with no argument; the snapshot is skipped when it returns False.
        writer: The :class:`~chainlite.training.extensions.snapshot_writers.Writer`.
        n_retains: How many snapshots to keep (all if not positive).
        autoload: Whether :meth:`initialize` loads the newest snapshot.
    """

    trigger = 1, 'epoch'
    priority = -100

    def __init__(self, target: Any = None, condition: Optional[Callable[[], bool]] = None,
                 writer: Optional[snapshot_writers.Writer] = None,
                 filename: Filename = 'snapshot_iter_{.updater.iteration}',
                 snapshot_on_error: bool = False, n_retains: int = -1,
                 autoload: bool = False) -> None:
        if not isinstance(filename, str) and not callable(filename):
            raise TypeError('snapshot: filename must be a format string or a callable of the '
                            'trainer, got %s' % type(filename).__name__)
        if not isinstance(filename, str) and (autoload or n_retains > 0):
            raise ValueError('snapshot: autoload and n_retains need filename to be a format '
                             'string (the existing snapshots are found by matching it)')
        if isinstance(filename, str) and '{' in os.path.dirname(filename) \
                and (autoload or n_retains > 0):
            raise ValueError('snapshot: with autoload or n_retains, only the file name (not its '
                             'directory) may contain replacement fields, got %r' % filename)
        self._target = target
        self.filename = filename
        self.condition = _always_true if condition is None else condition
        self.writer = snapshot_writers.SimpleWriter() if writer is None else writer
        self._snapshot_on_error = snapshot_on_error
        self.n_retains = n_retains
        self.autoload = autoload

    def initialize(self, trainer: Trainer) -> None:
        """Loads the newest complete snapshot if ``autoload``, and sets up ``n_retains``.

        A file that is not a complete NPZ archive (e.g. written by another program that
        crashed) is skipped with a warning, and the next older one is tried.
        """
        target = trainer if self._target is None else self._target
        outdir = trainer.out
        # The constructor allows autoload and n_retains with a format string only.
        if self.autoload and isinstance(self.filename, str):
            for _, name in reversed(_find_snapshot_files(self.filename, outdir)):
                path = os.path.join(outdir, name)
                if _is_complete_npz(path):
                    npz.load_npz(path, target)
                    break
                warnings.warn('snapshot: skipped %r when loading the newest snapshot: it is '
                              'not a complete NPZ archive' % path)
        if (self.n_retains > 0 and isinstance(self.filename, str)
                and hasattr(self.writer, '_add_cleanup_hook')):
            self.writer._add_cleanup_hook(_Cleanup(self.filename, outdir, self.n_retains))

    def on_error(self, trainer: Trainer, exc: BaseException, tb: Any) -> None:
        """Takes a snapshot if ``snapshot_on_error`` was set."""
        if self._snapshot_on_error:
            self._make_snapshot(trainer)

    def __call__(self, trainer: Trainer) -> None:
        """Takes a snapshot unless ``condition()`` returns False."""
        if self.condition():
            self._make_snapshot(trainer)

    def _make_snapshot(self, trainer: Trainer) -> None:
        target = trainer if self._target is None else self._target
        serialized = npz.serialize(target)
        if not isinstance(self.writer, snapshot_writers.SimpleWriter):
            # A background writer must not see parameters that training updates in place.
            serialized = {key: numpy.copy(value) for key, value in serialized.items()}
        filename = self.filename
        filename = filename(trainer) if callable(filename) else filename.format(trainer)
        self.writer(filename, trainer.out, serialized)

    def finalize(self) -> None:
        """Finalizes the writer (waits for background saves)."""
        if hasattr(self.writer, 'finalize'):
            self.writer.finalize()


class _Cleanup:
    """Deletes all but the ``n_retains`` newest snapshots named after ``fmt`` (a post-save hook).

    Equal settings compare equal, so that initializing a trainer twice adds the hook once.
    """

    def __init__(self, fmt: str, outdir: str, n_retains: int) -> None:
        self.fmt, self.outdir, self.n_retains = fmt, outdir, n_retains

    def __call__(self) -> None:
        for name in _find_stale_snapshots(self.fmt, self.outdir, self.n_retains):
            if not _lifeline.parent_alive():
                return  # a writer process whose trainer is gone: others may read these files
            with contextlib.suppress(FileNotFoundError):  # e.g. removed by another process
                os.remove(os.path.join(self.outdir, name))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Cleanup) and vars(self) == vars(other)


def snapshot(savefun: Optional[Callable[..., Any]] = None,
             filename: Filename = 'snapshot_iter_{.updater.iteration}', *,
             target: Any = None, condition: Optional[Callable[[], bool]] = None,
             writer: Optional[snapshot_writers.Writer] = None, snapshot_on_error: bool = False,
             n_retains: int = -1, autoload: bool = False) -> _Snapshot:
    """Returns an extension saving snapshots of the trainer, to resume training from them.

    The whole trainer (updater, optimizers, models, iterators, extensions' states) is
    serialized to a dictionary and written by ``writer`` (by default on the training thread
    with ``savefun``). The file is renamed into place only once complete, so an interrupted
    save never leaves a truncated snapshot. Runs once per epoch by default, with priority -100
    (after the other extensions).

    Args:
        savefun: ``savefun(path, dict_of_arrays)`` writes the file;
            :func:`chainlite.serializers.save_npz` if None. Not together with ``writer``.
        filename: The file name under ``trainer.out``: a template formatted with the trainer
            (``'snapshot_iter_{.updater.iteration}'`` gives ``'snapshot_iter_1000'``), or a
            callable taking the trainer.
        target: The object to save instead of the trainer.
        condition: Called with no argument before each snapshot; False skips it.
        writer: A :class:`~chainlite.training.extensions.snapshot_writers.Writer` (e.g. a
            ``ThreadWriter`` to save in the background).
        snapshot_on_error: Whether to take a snapshot when the training loop raises.
        n_retains: If positive, only the ``n_retains`` newest snapshots matching ``filename``
            are kept; older ones are deleted after each save.
        autoload: Whether to load the newest snapshot matching ``filename`` (by modification
            time) when training starts, to resume an interrupted run. It must be an NPZ file.

    Returns:
        The snapshot extension.

    Raises:
        TypeError: If both ``savefun`` and ``writer`` are given.
        ValueError: If ``autoload`` or ``n_retains`` is used with a callable ``filename``.

    Example:
        >>> import os, tempfile
        >>> from types import SimpleNamespace
        >>> from chainlite.training import extensions
        >>> class Counter:
        ...     def __init__(self):
        ...         self.n = 0
        ...     def serialize(self, serializer):
        ...         self.n = serializer('n', self.n)
        >>> out = tempfile.mkdtemp()
        >>> counter = Counter()
        >>> trainer = SimpleNamespace(out=out, updater=SimpleNamespace(iteration=0))
        >>> ext = extensions.snapshot(target=counter, filename='c_{.updater.iteration}',
        ...                           n_retains=2)
        >>> ext.initialize(trainer)
        >>> for i in range(1, 4):
        ...     counter.n = trainer.updater.iteration = i
        ...     ext(trainer)
        >>> sorted(os.listdir(out))
        ['c_2', 'c_3']
        >>> resumed = Counter()
        >>> extensions.snapshot(target=resumed, filename='c_{.updater.iteration}',
        ...                     autoload=True).initialize(trainer)
        >>> resumed.n
        3
    """
    if savefun is not None and writer is not None:
        raise TypeError('snapshot: savefun and writer cannot be given together; pass the save '
                        'function to the writer instead')
    if writer is None:
        writer = snapshot_writers.SimpleWriter(npz.save_npz if savefun is None else savefun)
    return _Snapshot(target=target, condition=condition, writer=writer, filename=filename,
                     snapshot_on_error=snapshot_on_error, n_retains=n_retains,
                     autoload=autoload)


def snapshot_object(target: Any, filename: Filename, savefun: Optional[Callable[..., Any]] = None,
                    **kwargs: Any) -> _Snapshot:
    """Returns an extension saving snapshots of one object (e.g. the model) during training.

    The same as ``snapshot(savefun, filename, target=target, **kwargs)``.

    Args:
        target: The object to save (anything with ``serialize``).
        filename: The file name template, formatted with the trainer
            (``'model_epoch_{.updater.epoch}'``), or a callable taking the trainer.
        savefun: The function writing the file; ``save_npz`` if None.
        **kwargs: ``condition``, ``writer``, ``snapshot_on_error``, ``n_retains``,
            ``autoload``, as in :func:`snapshot`.

    Returns:
        The snapshot extension.

    Example:
        >>> import os, tempfile
        >>> from types import SimpleNamespace
        >>> import chainlite.links as L
        >>> from chainlite.training import extensions
        >>> model = L.Linear(2, 3)
        >>> trainer = SimpleNamespace(out=tempfile.mkdtemp(),
        ...                           updater=SimpleNamespace(epoch=1))
        >>> extensions.snapshot_object(model, 'model_epoch_{.updater.epoch}')(trainer)
        >>> os.listdir(trainer.out)
        ['model_epoch_1']
    """
    return snapshot(savefun, filename, target=target, **kwargs)
