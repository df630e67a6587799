"""Writing a file so that readers see the old content or the complete new one, never a part."""
from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import time
from typing import Iterator

# ``.NAME.<12 hex digits>.tmp``: the temporary file of one write of NAME.
_TMP = re.compile(r'^\.(?P<name>.+)\.[0-9a-f]{12}\.tmp$')


def _tmp_name(name: str) -> str:
    return '.%s.%s.tmp' % (name, secrets.token_hex(6))


def _remove(path: str) -> None:
    with contextlib.suppress(FileNotFoundError, IsADirectoryError, PermissionError):
        os.remove(path)


def remove_stale(directory: str, name: str, before: float) -> None:
    """Removes the temporary files of writes of ``name`` started before ``before``.

    A write killed between creating its temporary file and renaming it (SIGKILL, power
    loss) leaves ``.NAME.<hex>.tmp`` behind; the next successful write of ``NAME`` removes
    it. Files modified at or after ``before`` (a write still under way) are kept.
    """
    try:
        entries = os.listdir(directory)
    except OSError:
        return
    for entry in entries:
        m = _TMP.match(entry)
        if m is None or m.group('name') != name:
            continue
        path = os.path.join(directory, entry)
        with contextlib.suppress(OSError):
            if os.stat(path).st_mtime < before:
                _remove(path)


def remove_stale_in_tree(root: str) -> list:
    """Removes every leftover temporary file of an atomic write under ``root``.

    Called when a Trainer starts on an output directory: files named like
    ``.NAME.<12 hex digits>.tmp`` there are the remains of writes that were killed.

    Returns:
        The paths removed.
    """
    removed = []
    for directory, _, files in os.walk(root):
        for entry in files:
            if _TMP.match(entry):
                path = os.path.join(directory, entry)
                _remove(path)
                removed.append(path)
    return removed


@contextlib.contextmanager
def replacing(path: str) -> Iterator[str]:
    """Yields a temporary path beside ``path``, renamed onto ``path`` if the block succeeds.

    The temporary file is flushed to disk before the rename (``os.replace`` is atomic within a
    directory), and removed if the block raises, so an interrupted save leaves the previous
    file intact and no stray temporary file. Temporary files that earlier, killed writes of
    the same file left behind are removed after the rename.
    """
    directory, name = os.path.split(os.path.abspath(path))
    if not os.path.isdir(directory):
        # Said here, naming the file asked for: open() would name the hidden temporary file.
        raise FileNotFoundError(errno.ENOENT, 'cannot write %r: its directory %r does not exist'
                                % (os.fspath(path), directory), os.fspath(path))
    tmp = os.path.join(directory, _tmp_name(name))
    started = time.time()
    try:
        yield tmp
        with open(tmp, 'rb+') as f:
            os.fsync(f.fileno())
        with contextlib.suppress(FileNotFoundError):
            # Overwriting keeps the old file's permissions, as open(path, 'wb') would.
            os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(tmp)
        raise
    remove_stale(directory, name, started)
