"""Downloading and caching data set files under one root directory.

The root is, in order of precedence: the path given to :func:`set_dataset_root`, the
environment variable ``CHAINLITE_DATASET_ROOT``, then ``CHAINER_DATASET_ROOT`` (so a Chainer
cache can be shared), and finally ``~/.chainlite/dataset``. Data set loaders keep the same
sub-directories and cache files as Chainer's (``pfnet/chainer/mnist/train.npz`` and so on).

:func:`cached_download` fetches a file from the first of several mirrors that serves it,
checks its SHA-256 and moves it into the cache atomically: a failed, corrupt or interrupted
download never leaves a file behind at the cached path. Only the standard library is used.
"""
from __future__ import annotations

import hashlib
import http.client
import os
import shutil
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Optional, Sequence, Union

if sys.platform == 'win32':  # pragma: no cover
    import msvcrt
else:
    import fcntl

_default_root = os.path.join('~', '.chainlite', 'dataset')
_dataset_root: Optional[str] = None

_TIMEOUT = 60.0  # seconds without data before a mirror counts as failed
_CHUNK = 1 << 20
_SCHEMES = ('https', 'http', 'file')

PathLike = Union[str, 'os.PathLike[str]']


def get_dataset_root() -> str:
    """Returns the root directory under which data sets are downloaded and cached.

    Returns:
        The path given to :func:`set_dataset_root` if any, else the value of the environment
        variable ``CHAINLITE_DATASET_ROOT`` or ``CHAINER_DATASET_ROOT``, else
        ``~/.chainlite/dataset`` (with ``~`` expanded).

    Example:
        >>> from chainlite.dataset import download
        >>> isinstance(download.get_dataset_root(), str)
        True
    """
    if _dataset_root is not None:
        return _dataset_root
    root = (os.environ.get('CHAINLITE_DATASET_ROOT') or os.environ.get('CHAINER_DATASET_ROOT')
            or _default_root)
    return os.path.expanduser(root)


def set_dataset_root(path: Optional[PathLike]) -> None:
    """Sets the root directory under which data sets are downloaded and cached.

    It takes precedence over the environment variables ``CHAINLITE_DATASET_ROOT`` and
    ``CHAINER_DATASET_ROOT``.

    Args:
        path: The new root directory; None goes back to the environment variables and the
            default ``~/.chainlite/dataset``.

    Example:
        >>> import os, tempfile
        >>> from chainlite.dataset import download
        >>> with tempfile.TemporaryDirectory() as d:
        ...     download.set_dataset_root(d)
        ...     print(download.get_dataset_root() == d)
        ...     download.set_dataset_root(None)
        True
    """
    global _dataset_root
    _dataset_root = None if path is None else os.path.expanduser(os.fspath(path))


def get_dataset_directory(dataset_name: str, create_directory: bool = True) -> str:
    """Returns the directory of a data set under the dataset root.

    Args:
        dataset_name: The data set's name; slashes separate sub-directories
            (``'pfnet/chainer/mnist'``).
        create_directory: If True, the directory (and its parents) is created when missing.

    Returns:
        The path of the directory.

    Example:
        >>> import os
        >>> from chainlite.dataset import download
        >>> path = download.get_dataset_directory('my/data', create_directory=False)
        >>> path == os.path.join(download.get_dataset_root(), 'my/data')
        True
    """
    path = os.path.join(get_dataset_root(), dataset_name)
    if create_directory:
        os.makedirs(path, exist_ok=True)
    return path


def cached_download(url_or_urls: Union[str, Sequence[str]], sha256: Optional[str] = None) -> str:
    """Downloads a file once and returns the path of its cached copy.

    Mirrors are tried in order until one serves the file completely and, when ``sha256`` is
    given, with that SHA-256. The file is written to a temporary file in the cache directory
    (``_dl_cache`` under the dataset root) and renamed into place only when it is complete and
    verified, so a failed, corrupt or interrupted download caches nothing. Later calls return
    the cached path without touching the network.

    Args:
        url_or_urls: The URL of the file, or a sequence of mirror URLs of the same file
            (``https``, ``http`` or ``file``).
        sha256: The expected SHA-256 of the file as a hex string, or None not to check it.
            When given, the cache entry is keyed by it, so any mirror can fill it.

    Returns:
        The path of the cached file.

    Raises:
        ValueError: If no URL is given, a URL's scheme is not supported, or ``sha256`` is not
            64 hex digits.
        OSError: If no mirror delivered the file (unreachable, HTTP error, truncated, or a
            SHA-256 mismatch); the message names each URL and why it failed, with the expected
            and actual hash for a mismatch.

    Example:
        >>> import os, tempfile, pathlib, hashlib
        >>> from chainlite.dataset import download
        >>> with tempfile.TemporaryDirectory() as d:
        ...     source = pathlib.Path(d, 'words.txt')
        ...     _ = source.write_text('hello world\\n')
        ...     digest = hashlib.sha256(source.read_bytes()).hexdigest()
        ...     download.set_dataset_root(os.path.join(d, 'root'))
        ...     path = download.cached_download(source.as_uri(), sha256=digest)
        ...     download.set_dataset_root(None)
        ...     print(pathlib.Path(path).read_text(), end='')
        hello world
    """
    urls = [url_or_urls] if isinstance(url_or_urls, str) else list(url_or_urls)
    if not urls:
        raise ValueError('cached_download: url_or_urls is empty')
    for url in urls:
        if not isinstance(url, str) or urllib.parse.urlsplit(url).scheme not in _SCHEMES:
            raise ValueError('cached_download: unsupported URL %r (expected one of the schemes '
                             '%s)' % (url, ', '.join(_SCHEMES)))
    if sha256 is not None:
        sha256 = sha256.lower()
        if len(sha256) != 64 or not all(c in '0123456789abcdef' for c in sha256):
            raise ValueError('cached_download: sha256 must be 64 hex digits, got %r' % sha256)

    cache_root = os.path.join(get_dataset_root(), '_dl_cache')
    os.makedirs(cache_root, exist_ok=True)
    key = sha256 or hashlib.sha256(urls[0].encode('utf-8')).hexdigest()
    name = os.path.basename(urllib.parse.urlsplit(urls[0]).path)
    cache_path = os.path.join(cache_root, key + ('-' + name if name else ''))
    if os.path.exists(cache_path):
        return cache_path

    failures = []
    for url in urls:
        try:
            _fetch_verified(url, sha256, cache_path)
            return cache_path
        except (OSError, http.client.HTTPException, _HashMismatch) as e:
            if isinstance(e, urllib.error.HTTPError):
                e.close()  # it holds the open error response
            failures.append('  %s: %s' % (url, e))
    raise OSError('cached_download: could not download %r from any of its %d mirror(s); '
                  'nothing was cached:\n%s' % (name, len(urls), '\n'.join(failures)))


class _HashMismatch(Exception):
    """A downloaded file whose SHA-256 differs from the expected one."""


def _fetch_verified(url: str, sha256: Optional[str], cache_path: str) -> None:
    directory = os.path.dirname(cache_path)
    fd, temp_path = tempfile.mkstemp(prefix='.download-', dir=directory)
    try:
        digest = hashlib.sha256()
        received = 0
        sys.stderr.write('Downloading from %s...\n' % url)
        sys.stderr.flush()
        with os.fdopen(fd, 'wb') as out, urllib.request.urlopen(url, timeout=_TIMEOUT) as resp:
            length = resp.headers.get('Content-Length')
            while True:
                chunk = resp.read(_CHUNK)
                if not chunk:
                    break
                digest.update(chunk)
                out.write(chunk)
                received += len(chunk)
        # http.client returns a short body without complaint when the server hangs up.
        if length is not None and length.isdigit() and received != int(length):
            raise OSError('connection closed after %d of %s bytes' % (received, length))
        actual = digest.hexdigest()
        if sha256 is not None and actual != sha256:
            raise _HashMismatch('SHA-256 mismatch: expected %s, got %s' % (sha256, actual))
        os.replace(temp_path, cache_path)
    finally:
        if os.path.exists(temp_path):
            os.remove(temp_path)


class _FileLock:
    """An exclusive advisory lock on a file, held by one process (or thread) at a time."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._file: Any = None

    def __enter__(self) -> '_FileLock':
        self._file = open(self.path, 'a+b')
        if sys.platform == 'win32':  # pragma: no cover
            self._file.seek(0)
            msvcrt.locking(self._file.fileno(), msvcrt.LK_LOCK, 1)
        else:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        try:
            if sys.platform == 'win32':  # pragma: no cover
                self._file.seek(0)
                msvcrt.locking(self._file.fileno(), msvcrt.LK_UNLCK, 1)
            else:
                fcntl.flock(self._file.fileno(), fcntl.LOCK_UN)
        finally:
            self._file.close()


def cache_or_load_file(path: PathLike, creator: Callable[[str], Any],
                       loader: Callable[[str], Any]) -> Any:
    """Loads a cached file, or creates it first if it does not exist yet.

    ``creator`` writes the file to a temporary path (in the same directory, with the same base
    name) and returns its content; the file is then renamed to ``path`` atomically. A lock
    file beside it (``.<name>.lock``) makes concurrent processes wait for one creator and
    then load its result instead of creating the file again.

    Args:
        path: Where the cached file lives.
        creator: Called as ``creator(temp_path)`` when the file is missing; writes the file
            and returns its content. There is no file at ``temp_path`` before the call.
        loader: Called as ``loader(path)`` when the file exists; returns its content.

    Returns:
        What ``creator`` or ``loader`` returned.

    Raises:
        RuntimeError: If the file must be created and the dataset root (see
            :func:`get_dataset_root`) is a file, not a directory.

    Example:
        >>> import os, pathlib, tempfile
        >>> from chainlite.dataset import download
        >>> def create(path):
        ...     _ = pathlib.Path(path).write_text('42')
        ...     return 'created'
        >>> def load(path):
        ...     return 'loaded ' + pathlib.Path(path).read_text()
        >>> with tempfile.TemporaryDirectory() as d:
        ...     target = os.path.join(d, 'answer.txt')
        ...     print(download.cache_or_load_file(target, create, load))
        ...     print(download.cache_or_load_file(target, create, load))
        created
        loaded 42
    """
    path = os.fspath(path)
    if os.path.exists(path):
        return loader(path)
    # As in Chainer, creating a cache file needs a usable dataset root, even for a path
    # outside it: a root that is a file is an error before any work.
    root = get_dataset_root()
    if os.path.exists(root) and not os.path.isdir(root):
        raise RuntimeError('cache_or_load_file: the dataset root %r is not a directory'
                           % (root,))
    directory, name = os.path.split(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    with _FileLock(os.path.join(directory, '.%s.lock' % name)):
        if os.path.exists(path):
            return loader(path)
        temp_dir = tempfile.mkdtemp(prefix='.create-', dir=directory)
        try:
            temp_path = os.path.join(temp_dir, name)
            content = creator(temp_path)
            os.replace(temp_path, path)
        finally:
            shutil.rmtree(temp_dir, ignore_errors=True)
    return content
