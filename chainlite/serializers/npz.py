"""NPZ serialization: an object hierarchy as a flat dictionary of arrays in a zip of ``.npy``.

Keys are paths, e.g. ``predictor/l1/W`` for a model or ``predictor/l1/W/m`` for the Adam
state of that parameter, exactly as Chainer writes them, so files move both ways between
Chainer and chainlite. Unlike Chainer, loading never unpickles: object arrays are refused
(a saved None, which NumPy stores as a pickle, is recognised without running it), and saving
to a path replaces the file atomically.
"""
from __future__ import annotations

import collections.abc
import io
import math
import os
import pickletools
import zipfile
import zlib
from typing import IO, Any, Callable, Iterator, Optional, Sequence, Union

import numpy
from numpy.lib import format as npy_format

from chainlite.serializers import _atomic
from chainlite.serializers import _values
from chainlite.serializers import serializer as serializer_module

IgnoreNames = Union[None, str, Callable[[str], bool], Sequence[Union[str, Callable[[str], bool]]]]


class DictionarySerializer(serializer_module.Serializer):
    """Saves an object hierarchy into a flat dictionary of NumPy arrays keyed by path.

    It writes no file itself: :func:`save_npz` feeds the dictionary to an NPZ archive.

    Args:
        target: The dictionary to fill; a new one if None.
        path: The path of this serializer in the hierarchy (``''`` for the root, else ending
            with ``/``).

    Attributes:
        target: The dictionary of arrays. Scalars are stored as 0-d arrays and None as a 0-d
            object array (as Chainer does).
        path: The path prefixed to every key.

    Example:
        >>> import numpy as np
        >>> from chainlite import serializers
        >>> s = serializers.DictionarySerializer()
        >>> _ = s['l1']('W', np.ones((2, 2), np.float32))
        >>> _ = s('t', 3)
        >>> sorted(s.target)
        ['l1/W', 't']
    """

    def __init__(self, target: Optional[dict] = None, path: str = '') -> None:
        self.target = {} if target is None else target
        self.path = path

    def __getitem__(self, key: str) -> 'DictionarySerializer':
        return DictionarySerializer(self.target, self.path + key.strip('/') + '/')

    def __call__(self, key: str, value: Any) -> Any:
        full_key = self.path + key.lstrip('/')
        stored = _values.to_storable(full_key, value)
        self.target[full_key] = numpy.asarray(None) if stored is None else stored
        return value


def serialize(obj: Any) -> dict:
    """Serializes an object into a dictionary of arrays with :class:`DictionarySerializer`.

    Args:
        obj: An object with a ``serialize(serializer)`` method.

    Returns:
        The dictionary, keyed by path.

    Example:
        >>> from chainlite.serializers import npz
        >>> class Step:
        ...     def serialize(self, serializer):
        ...         serializer('t', 2)
        >>> npz.serialize(Step())
        {'t': array(2)}
    """
    s = DictionarySerializer()
    s.save(obj)
    return s.target


def save_npz(file: str | os.PathLike[str] | IO[bytes], obj: Any, compression: bool = True) -> None:
    """Saves an object into an NPZ file.

    Given a path, the file is written under a temporary name in the same directory and then
    renamed onto ``file``, so an interrupted save never leaves a truncated file; given a file
    object, the archive is written to it directly.

    Args:
        file: A path (str or path-like) or a binary file object opened for writing.
        obj: An object with a ``serialize(serializer)`` method, or a dictionary of arrays
            (saved as it is).
        compression: Whether to compress the archive (zip deflate).

    Raises:
        TypeError: If a value cannot be stored without pickle (an object array).

    Example:
        >>> import io, numpy as np
        >>> from chainlite import serializers
        >>> buf = io.BytesIO()
        >>> serializers.save_npz(buf, {'W': np.eye(2, dtype=np.float32)})
        >>> _ = buf.seek(0)
        >>> np.load(buf)['W']
        array([[1., 0.],
               [0., 1.]], dtype=float32)
    """
    if isinstance(obj, dict):
        target: dict[str, Any] = {}
        for key, value in obj.items():
            DictionarySerializer(target)(key, value)
    else:
        target = serialize(obj)
    if isinstance(file, (str, os.PathLike)):
        with _atomic.replacing(os.fspath(file)) as tmp:
            with open(tmp, 'xb') as f:
                _write_archive(f, target, compression)
    else:
        _check_binary('save_npz', file, 'wb')
        _write_archive(file, target, compression)


def _write_archive(file: Any, target: dict, compression: bool) -> None:
    """Writes the arrays as ``<key>.npy`` members of a zip archive, as ``numpy.savez`` does."""
    method = zipfile.ZIP_DEFLATED if compression else zipfile.ZIP_STORED
    with zipfile.ZipFile(file, mode='w', compression=method, allowZip64=True) as archive:
        for key, array in target.items():
            array = numpy.asarray(array)
            # Only the 0-d None array is pickled (Chainer's format for None).
            is_none = array.dtype.hasobject and array.ndim == 0 and array[()] is None
            with archive.open(key + '.npy', 'w', force_zip64=True) as member:
                npy_format.write_array(member, array, allow_pickle=is_none)


class NpzDeserializer(serializer_module.Deserializer):
    """Loads an object hierarchy from an NPZ archive (or any mapping of paths to arrays).

    Args:
        npz: The archive: what :func:`load_npz` opens, a ``numpy.load`` result, or a dict.
        path: The path in the archive to load from (``''`` for the root, else ending with
            ``/``, e.g. ``'updater/model:main/'`` inside a trainer snapshot).
        strict: If True, a missing key raises ``KeyError``; if False, it is skipped and the
            value is left as it is.
        ignore_names: Keys (full paths) to skip: a string, a callable taking the key and
            returning True to skip it, or a list of these.

    From an archive (what :func:`load_npz` opens, or a ``numpy.load`` result), each
    array's header is checked against the file and against the value it loads into before
    its data is read (see :func:`load_npz`).

    Raises:
        ValueError: If ``ignore_names`` is not a string, a callable or a list of them.

    Example:
        >>> import numpy as np
        >>> from chainlite import serializers
        >>> d = serializers.NpzDeserializer({'l1/W': np.ones(2), 't': np.array(5)})
        >>> w = np.zeros(2)
        >>> _ = d['l1']('W', w)
        >>> w, d('t', 0)
        (array([1., 1.]), 5)
    """

    def __init__(self, npz: Any, path: str = '', strict: bool = True,
                 ignore_names: IgnoreNames = None) -> None:
        self.npz = npz
        self.path = path
        self.strict = strict
        if ignore_names is None:
            ignore_names = []
        names = ignore_names if isinstance(ignore_names, (list, tuple)) else [ignore_names]
        for name in names:
            if not isinstance(name, str) and not callable(name):
                raise ValueError(
                    'NpzDeserializer: ignore_names must be a string, a callable or a list of '
                    'them, got %r' % (name,))
        self.ignore_names = ignore_names
        self._ignore = tuple(names)

    def __getitem__(self, key: str) -> 'NpzDeserializer':
        return NpzDeserializer(self.npz, self.path + key.strip('/') + '/', strict=self.strict,
                               ignore_names=self.ignore_names)

    def __call__(self, key: str, value: Any) -> Any:
        key = self.path + key.lstrip('/')
        for name in self._ignore:
            if name == key if isinstance(name, str) else name(key):
                return value
        if key not in self.npz:
            if not self.strict:
                return value
            raise KeyError(
                '%r is not in %s (load with strict=False to skip missing entries)'
                % (key, _source_name(self.npz)))
        source = _source_name(self.npz)
        if isinstance(self.npz, _NpzArchive):
            stored = self.npz.read(key, value)
        else:
            if isinstance(self.npz, numpy.lib.npyio.NpzFile) and self.npz.zip is not None \
                    and key + '.npy' in self.npz.zip.NameToInfo:
                # NumPy reads the member (with the pickle setting it was opened with) once
                # chainlite has checked its sizes, and its shape against the value.
                header = _read_header(self.npz.zip, key + '.npy', key, source)
                if not header.dtype.hasobject:
                    _values.check_fits(key, source, header.shape, header.dtype, value)
            try:
                stored = self.npz[key]
            except ValueError as e:
                # e.g. numpy.load(allow_pickle=False) meeting an object array
                raise ValueError('cannot load %r from %s: %s' % (key, source, e)) from e
        return _values.restore(key, source, stored, value)


def load_npz(file: str | os.PathLike[str] | IO[bytes], obj: Any, path: str = '',
             strict: bool = True, ignore_names: IgnoreNames = None) -> None:
    """Loads an object from an NPZ file, without ever unpickling.

    Args:
        file: A path (str or path-like) or a binary file object.
        obj: An object with a ``serialize(serializer)`` method; arrays are loaded in place.
        path: The path in the file to load from (e.g. ``'updater/model:main/'`` to take the
            model out of a trainer snapshot).
        strict: If True, a missing key raises ``KeyError``; if False, it is skipped.
        ignore_names: Keys to skip: a string, a callable or a list of them (see
            :class:`NpzDeserializer`).

    Each array's ``.npy`` header is read first and checked, before its data is read or any
    room is made for it: the sizes its zip entry claims must fit in the archive (at most
    1,100 times its compressed size, more than deflate can reach), the header's shape and
    dtype must fit in the bytes the entry holds, and the shape and dtype must fit the array
    the data loads into. So a small file cannot make chainlite allocate much more than the
    arrays it loads into.

    Raises:
        KeyError: If ``strict`` and a key is missing (the message names it and the file).
        TypeError: If ``file`` is not a path or a binary file object (e.g. a file opened in
            text mode).
        ValueError: If the file is not an NPZ archive, a member is damaged or declares more
            data than it holds, it holds an object array (other than a saved None), or an
            array's shape or dtype does not fit the one it loads into; the message names the
            key and the file.

    Example:
        >>> import io, numpy as np
        >>> from chainlite import serializers
        >>> class Affine:
        ...     def __init__(self):
        ...         self.W = np.zeros((2, 2), np.float32)
        ...     def serialize(self, serializer):
        ...         serializer('W', self.W)
        >>> buf = io.BytesIO()
        >>> serializers.save_npz(buf, {'W': np.eye(2, dtype=np.float32)})
        >>> a = Affine()
        >>> serializers.load_npz(io.BytesIO(buf.getvalue()), a)
        >>> a.W
        array([[1., 0.],
               [0., 1.]], dtype=float32)
    """
    with _NpzArchive(file) as archive:
        NpzDeserializer(archive, path=path, strict=strict, ignore_names=ignore_names).load(obj)


def _source_name(npz: Any) -> str:
    """Names where the arrays come from, for error messages."""
    name = getattr(npz, 'filename', None) or getattr(getattr(npz, 'zip', None), 'filename', None)
    return repr(name) if name else 'the given %s' % type(npz).__name__


def _check_binary(function: str, file: Any, mode: str) -> None:
    """Refuses a file object opened in text mode, saying how to open it instead."""
    text = isinstance(file, io.TextIOBase)
    if not text and mode == 'rb':
        try:
            text = isinstance(file.read(0), str)
        except (OSError, TypeError, ValueError):
            pass
    if text:
        raise TypeError('%s: the file %r is open in text mode; open it in binary mode (%r)'
                        % (function, getattr(file, 'name', file), mode))


# The most a zip member may claim to inflate to, in times its compressed size. Deflate (what
# numpy.savez_compressed and save_npz use) cannot exceed about 1,032; a member that claims
# more is damaged or crafted to make the reader allocate what the archive does not hold.
_MAX_INFLATION = 1100
# The most bytes of pickle a saved None takes (NumPy's is about 150 in every protocol).
_MAX_NONE_PICKLE = 4096


class _Header:
    """What the ``.npy`` header of a member declares, and the bytes of data it holds."""

    def __init__(self, shape: tuple[int, ...], dtype: numpy.dtype, data_size: int,
                 payload: Optional[bytes]) -> None:
        self.shape = shape
        self.dtype = dtype
        self.data_size = data_size
        # The data of a small 0-d object array (a saved None?), to be parsed, never run.
        self.payload = payload


def _archive_size(archive: zipfile.ZipFile) -> int:
    fp = archive.fp
    if fp is None:
        raise ValueError('the NPZ archive is closed')
    return fp.seek(0, os.SEEK_END)


def _read_header(archive: zipfile.ZipFile, member: str, key: str, source: str) -> _Header:
    """Reads and checks the header of ``member``, before any of its data is read.

    The sizes the zip directory claims are checked against the archive's size and against
    each other, and the array the header declares against the bytes the member holds.
    """
    where = 'cannot load %r from %s' % (key, source)
    info = archive.getinfo(member)
    size = _archive_size(archive)
    if info.compress_size > size:
        raise ValueError('%s: its zip entry claims %d compressed bytes, more than the %d bytes '
                         'of the archive; the file is damaged'
                         % (where, info.compress_size, size))
    if info.file_size > _MAX_INFLATION * info.compress_size:
        raise ValueError('%s: its zip entry claims %d bytes inflated from %d compressed bytes, '
                         'more than the %d times that deflate (what NumPy writes) can reach; '
                         'the file is damaged or crafted'
                         % (where, info.file_size, info.compress_size, _MAX_INFLATION))
    try:
        with archive.open(info) as f:
            try:
                version = npy_format.read_magic(f)
                if version == (1, 0):
                    shape, _, dtype = npy_format.read_array_header_1_0(f)
                else:
                    shape, _, dtype = npy_format.read_array_header_2_0(f)
            except ValueError as e:
                raise ValueError('%s: the member is not a valid .npy array (%s)'
                                 % (where, e)) from e
            data_size = info.file_size - f.tell()
            payload = None
            if dtype.hasobject:
                if shape == () and data_size <= _MAX_NONE_PICKLE:
                    payload = f.read(data_size)
                return _Header(shape, dtype, data_size, payload)
    except (zipfile.BadZipFile, zlib.error, EOFError) as e:
        raise ValueError('%s: the archive is damaged (%s)' % (where, e)) from e
    if any(d < 0 for d in shape):
        raise ValueError('%s: its .npy header declares the negative shape %s'
                         % (where, shape))
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes > data_size:
        raise ValueError('%s: its .npy header declares shape %s of %s (%d bytes), but the '
                         'member holds only %d bytes of data'
                         % (where, shape, dtype, nbytes, data_size))
    return _Header(shape, dtype, data_size, None)


class _NpzArchive(collections.abc.Mapping):
    """The arrays of an NPZ file by key, read on access and never unpickled."""

    def __init__(self, file: Any) -> None:
        if isinstance(file, (str, os.PathLike)):
            self.filename = os.fspath(file)
        elif not hasattr(file, 'read'):
            raise TypeError('load_npz: file must be a path or a binary file object, got %r '
                            '(a %s)' % (file, type(file).__name__))
        else:
            _check_binary('load_npz', file, 'rb')
            self.filename = getattr(file, 'name', None) or '<%s>' % type(file).__name__
        try:
            self._zip = zipfile.ZipFile(file)
        except zipfile.BadZipFile as e:
            raise ValueError('%r is not an NPZ file (a zip archive of .npy arrays)'
                             % self.filename) from e
        self._members = {name[:-4]: name for name in self._zip.namelist()
                         if name.endswith('.npy')}

    def __getitem__(self, key: str) -> Optional[numpy.ndarray]:
        return self.read(key, None)

    def read(self, key: str, like: Any) -> Optional[numpy.ndarray]:
        """Reads the array of ``key``, once its header fits the file and ``like``.

        Args:
            key: The key of the array (its member's name without ``.npy``).
            like: The value the array loads into (see :func:`_values.check_fits`); None
                checks only the file.

        Returns:
            The array, or None for a saved None.

        Raises:
            KeyError: If there is no such member.
            ValueError: If the member is damaged, declares more data than it holds, is an
                object array, or does not fit ``like`` (the message names key and file).
        """
        member = self._members[key]
        source = repr(self.filename)
        header = _read_header(self._zip, member, key, source)
        if header.dtype.hasobject:
            if header.payload is not None and _pickles_none(header.payload):
                return None
            raise ValueError(
                'cannot load %r from %s: it is an object array (dtype %s, shape %s), which '
                'chainlite never loads because reading it would run pickle'
                % (key, source, header.dtype, header.shape))
        _values.check_fits(key, source, header.shape, header.dtype, like)
        try:
            with self._zip.open(member) as f:
                return npy_format.read_array(f, allow_pickle=False)
        except (ValueError, zipfile.BadZipFile, zlib.error, EOFError) as e:
            raise ValueError('cannot load %r from %s: the archive is damaged (%s)'
                             % (key, source, e)) from e

    def __contains__(self, key: object) -> bool:
        return key in self._members  # Mapping's would read the array

    def __iter__(self) -> Iterator[str]:
        return iter(self._members)

    def __len__(self) -> int:
        return len(self._members)

    def __enter__(self) -> '_NpzArchive':
        return self

    def __exit__(self, *exc: Any) -> None:
        self._zip.close()


# What NumPy's pickle of a 0-d object array holding None may contain (NumPy 1 and 2, pickle
# protocols 2 to 5): the array is rebuilt by numpy's _reconstruct, ndarray and dtype from small
# ints and strings.
_NONE_PICKLE_OPCODES = frozenset([
    'PROTO', 'FRAME', 'MEMOIZE', 'PUT', 'BINPUT', 'LONG_BINPUT', 'GET', 'BINGET', 'LONG_BINGET',
    'GLOBAL', 'STACK_GLOBAL', 'SHORT_BINUNICODE', 'BINUNICODE', 'SHORT_BINSTRING',
    'SHORT_BINBYTES', 'BININT', 'BININT1', 'MARK', 'EMPTY_TUPLE', 'TUPLE1', 'TUPLE2', 'TUPLE3',
    'TUPLE',
    'REDUCE', 'BUILD', 'NEWFALSE', 'NEWTRUE', 'NONE', 'EMPTY_LIST', 'APPEND', 'STOP'])
_NONE_PICKLE_TEXTS = frozenset([
    'numpy.core.multiarray _reconstruct', 'numpy._core.multiarray _reconstruct',
    'numpy ndarray', 'numpy dtype', 'numpy.core.multiarray', 'numpy._core.multiarray',
    '_reconstruct', 'numpy', 'ndarray', 'dtype', 'O8', '|', 'b', b'b',
    '_codecs encode', 'latin1'])  # protocol 2 (NumPy < 1.17) spells b'b' as encode('b')
_MEMO_OPCODES = frozenset(['PROTO', 'FRAME', 'MEMOIZE', 'PUT', 'BINPUT', 'LONG_BINPUT'])
# The element list of the array state: [None], then the closing of the state and the pickle.
_NONE_PICKLE_TAIL = ['EMPTY_LIST', 'NONE', 'APPEND', 'TUPLE', 'BUILD', 'STOP']


def _pickles_none(payload: bytes) -> bool:
    """Whether ``payload`` is NumPy's pickle of an object array whose one element is None.

    The opcodes are only parsed (``pickletools.genops``), never executed.
    """
    try:
        ops = [(op.name, arg) for op, arg, _ in pickletools.genops(payload)]
    except ValueError:
        return False
    for name, arg in ops:
        if name not in _NONE_PICKLE_OPCODES:
            return False
        if isinstance(arg, (str, bytes)) and arg not in _NONE_PICKLE_TEXTS:
            return False
    names = [name for name, _ in ops if name not in _MEMO_OPCODES]
    return names.count('EMPTY_LIST') == 1 and names[-len(_NONE_PICKLE_TAIL):] == _NONE_PICKLE_TAIL
