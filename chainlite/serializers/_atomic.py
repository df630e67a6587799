"""Writing a file so that readers see the old content or the complete new one, never a part."""
from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from typing import Iterator


@contextlib.contextmanager
def replacing(path: str) -> Iterator[str]:
    """Yields a temporary path beside ``path``, renamed onto ``path`` if the block succeeds.

    The temporary file is flushed to disk before the rename (``os.replace`` is atomic within a
    directory), and removed if the block raises, so an interrupted save leaves the previous
    file intact and no stray temporary file.
    """
    directory, name = os.path.split(os.path.abspath(path))
    if not os.path.isdir(directory):
        # Said here, naming the file asked for: open() would name the hidden temporary file.
        raise FileNotFoundError(errno.ENOENT, 'cannot write %r: its directory %r does not exist'
                                % (os.fspath(path), directory), os.fspath(path))
    tmp = os.path.join(directory, '.%s.%s.tmp' % (name, secrets.token_hex(6)))
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
