"""HDF5 serialization through h5py (optional: ``pip install h5py``, or the extra
``pip install "chainlite-dl[hdf5]"``).

The hierarchy maps onto HDF5 groups (``/predictor/l1/W``); None is stored as an empty
dataset, as in Chainer. Without h5py, this module still imports, and its classes and
functions raise a RuntimeError saying how to install it when they are used.
"""
from __future__ import annotations

import importlib.util
import math
import os
from typing import Any, Optional

import numpy

from chainlite.serializers import _atomic
from chainlite.serializers import _values
from chainlite.serializers import serializer as serializer_module


# Whether h5py is installed (Chainer's flag; it is imported on first use).
_available = importlib.util.find_spec('h5py') is not None


def _h5py():
    """Returns the h5py module, or raises the error that says how to install it."""
    try:
        import h5py
    except ImportError as e:
        raise RuntimeError(
            'HDF5 serialization needs h5py, which is not installed: install h5py '
            '(pip install h5py, or the extra: pip install "chainlite-dl[hdf5]"), or use '
            'save_npz/load_npz') from e
    return h5py


def _check_available() -> None:
    # Chainer's check: raises the RuntimeError that says how to install h5py if it is missing.
    if not _available:
        _h5py()


def _source_name(group: Any) -> str:
    if group is None:
        return 'no HDF5 group'
    return '%r (group %s)' % (group.file.filename, group.name)


class HDF5Serializer(serializer_module.Serializer):
    """Saves an object hierarchy into an HDF5 group, one dataset per value.

    Args:
        group: The ``h5py.Group`` (or ``h5py.File``) to write into.
        compression: The gzip level for datasets of more than one element.

    Raises:
        RuntimeError: If h5py is not installed.

    Example:
        >>> import os, tempfile, numpy as np
        >>> from chainlite import serializers
        >>> try:
        ...     import h5py
        ... except ImportError:  # then HDF5Serializer raises a RuntimeError saying so
        ...     h5py = None
        >>> if h5py is not None:
        ...     with tempfile.TemporaryDirectory() as d:
        ...         with h5py.File(os.path.join(d, 'a.h5'), 'w') as f:
        ...             _ = serializers.HDF5Serializer(f)['l1']('W', np.ones(2, np.float32))
        ...             assert f['l1/W'].shape == (2,)
    """

    def __init__(self, group: Any, compression: int = 4) -> None:
        _h5py()
        self.group = group
        self.compression = compression

    def __getitem__(self, key: str) -> 'HDF5Serializer':
        return HDF5Serializer(self.group.require_group(key.strip('/')), self.compression)

    def __call__(self, key: str, value: Any) -> Any:
        key = key.lstrip('/')
        array = _values.to_storable(key, value)
        if array is None:
            h5py = _h5py()
            if tuple(h5py.version.version_tuple[:3]) < (2, 7, 0):
                raise RuntimeError('HDF5Serializer: saving None (%r) needs h5py >= 2.7.0 '
                                   '(h5py.Empty), found %s' % (key, h5py.version.version))
            self.group.create_dataset(key, data=h5py.Empty('f'))
        else:
            compression = None if array.size <= 1 else self.compression
            self.group.create_dataset(key, data=array, compression=compression)
        return value


class HDF5Deserializer(serializer_module.Deserializer):
    """Loads an object hierarchy from an HDF5 group.

    Args:
        group: The ``h5py.Group`` (or ``h5py.File``) to read from.
        strict: If True, a missing key raises ``KeyError``; if False, it is skipped.

    Links are followed only inside the file: loading a key that is, or whose path goes
    through, an external link, or a dataset whose data is stored outside the file, raises a
    ValueError naming the key and the file (see :func:`load_hdf5`).

    Raises:
        RuntimeError: If h5py is not installed.

    Example:
        >>> import os, tempfile, numpy as np
        >>> from chainlite import serializers
        >>> try:
        ...     import h5py
        ... except ImportError:  # then HDF5Deserializer raises a RuntimeError saying so
        ...     h5py = None
        >>> if h5py is not None:
        ...     with tempfile.TemporaryDirectory() as d:
        ...         with h5py.File(os.path.join(d, 'a.h5'), 'w') as f:
        ...             _ = serializers.HDF5Serializer(f)('t', 3)
        ...         with h5py.File(os.path.join(d, 'a.h5'), 'r') as f:
        ...             assert serializers.HDF5Deserializer(f)('t', 0) == 3
    """

    def __init__(self, group: Any, strict: bool = True) -> None:
        _h5py()
        self.group = group
        self.strict = strict
        # For a child whose group is absent: where it was looked for.
        self._missing: Optional[str] = None

    def __getitem__(self, key: str) -> 'HDF5Deserializer':
        key = key.strip('/')
        group = None
        if self.group is not None:
            where = 'cannot load group %r from %s' % (key, _source_name(self.group))
            group = _find(self.group, key, where)
            if group is not None and not isinstance(group, _h5py().Group):
                raise ValueError('%s: it is a dataset, where a group is expected' % where)
        child = HDF5Deserializer(group, strict=self.strict)
        if child.group is None:
            child._missing = ('group %r of %s' % (key, _source_name(self.group))
                              if self._missing is None else self._missing)
        return child

    def __call__(self, key: str, value: Any) -> Any:
        key = key.lstrip('/')
        source = _source_name(self.group)
        where = 'cannot load %r from %s' % (key, source)
        dataset = None if self.group is None else _find(self.group, key, where)
        if dataset is None:
            if not self.strict:
                return value
            raise KeyError('%r is not in %s (load with strict=False to skip missing entries)'
                           % (key, self._missing or source))
        h5py = _h5py()
        if not isinstance(dataset, h5py.Dataset):
            kind = 'group' if isinstance(dataset, h5py.Group) else type(dataset).__name__
            raise ValueError('%s: it is a %s, where an array or a value is expected'
                             % (where, kind))
        _check_stored_here(dataset, where)
        if dataset.shape is None:  # h5py.Empty: a saved None
            stored = None
        elif h5py.check_string_dtype(dataset.dtype) is not None:
            # h5py reads strings as bytes: decode them (to a str array, not objects).
            _check_storage(dataset, where)
            stored = numpy.asarray(dataset.asstr()[()], dtype=str)
        else:
            _values.check_fits(key, source, dataset.shape, dataset.dtype, value)
            _check_storage(dataset, where)
            stored = dataset[()]
        return _values.restore(key, source, stored, value)


# HDF5's own limit on a chain of soft links (H5L_NUM_LINKS).
_MAX_SOFT_LINKS = 16
# The most a dataset may declare, in times the bytes the file stores for it (plus 1 MiB for
# small datasets never written, which read as their fill value). Gzip (deflate) cannot exceed
# about 1,032.
_MAX_INFLATION = 1100


def _find(group: Any, path: str, where: str, hops: int = 0) -> Any:
    """Returns the object at ``path`` in ``group``, or None if there is none.

    Hard links and soft links (whose targets are paths in the same file) are followed; an
    external link, anywhere on the way, is refused: it would open another file.
    """
    h5py = _h5py()
    node = group.file if path.startswith('/') else group
    parts = [p for p in path.split('/') if p]
    for i, part in enumerate(parts):
        if not isinstance(node, h5py.Group):
            return None
        link = node.get(part, getlink=True)
        if link is None:
            return None
        if isinstance(link, h5py.HardLink):
            node = node[part]
        elif isinstance(link, h5py.SoftLink):
            if hops >= _MAX_SOFT_LINKS:
                raise ValueError('%s: more than %d soft links in a row (a loop?)'
                                 % (where, _MAX_SOFT_LINKS))
            node = _find(node, link.path, where, hops + 1)
            if node is None:  # a dangling soft link
                return None
        else:
            which = 'it' if hops == 0 and i == len(parts) - 1 else \
                'the link %s/%s on its path' % (node.name.rstrip('/'), part)
            raise ValueError('%s: %s is an external link to %r in %r; chainlite reads only '
                             'the file it was given'
                             % (where, which, getattr(link, 'path', None),
                                getattr(link, 'filename', None)))
    return node


def _check_stored_here(dataset: Any, where: str) -> None:
    """Refuses a dataset whose data lives outside the file (external storage, virtual)."""
    if dataset.external:
        raise ValueError('%s: its data is stored outside the file, in %r (HDF5 external '
                         'storage); chainlite reads only the file it was given'
                         % (where, [name for name, _, _ in dataset.external]))
    if getattr(dataset, 'is_virtual', False):
        files = sorted({m.file_name for m in dataset.virtual_sources()})
        raise ValueError('%s: it is a virtual dataset, whose data comes from %r; chainlite '
                         'reads only the file it was given' % (where, files))


def _check_storage(dataset: Any, where: str) -> None:
    """Refuses a dataset that declares far more data than the file stores for it."""
    nbytes = math.prod(dataset.shape) * dataset.dtype.itemsize
    stored = dataset.id.get_storage_size()
    if nbytes > _MAX_INFLATION * stored + (1 << 20):
        raise ValueError('%s: it declares shape %s of %s (%d bytes), but the file stores only '
                         '%d bytes for it' % (where, dataset.shape, dataset.dtype, nbytes, stored))


def save_hdf5(filename: str | os.PathLike[str], obj: Any, compression: int = 4) -> None:
    """Saves an object into an HDF5 file, replacing the file atomically.

    Args:
        filename: The path to write.
        obj: An object with a ``serialize(serializer)`` method, or a dictionary of arrays.
        compression: The gzip level for datasets of more than one element.

    Raises:
        RuntimeError: If h5py is not installed.

    Example:
        >>> import os, tempfile, numpy as np
        >>> from chainlite import serializers
        >>> with tempfile.TemporaryDirectory() as d:
        ...     try:
        ...         serializers.save_hdf5(os.path.join(d, 'w.h5'), {'l1/W': np.ones(2)})
        ...     except RuntimeError as e:  # h5py is not installed
        ...         assert 'pip install h5py' in str(e)
    """
    h5py = _h5py()
    with _atomic.replacing(os.fspath(filename)) as tmp:
        with h5py.File(tmp, 'w') as f:
            s = HDF5Serializer(f, compression=compression)
            if isinstance(obj, dict):
                for key, value in obj.items():
                    s(key, value)
            else:
                s.save(obj)


def load_hdf5(filename: str | os.PathLike[str], obj: Any) -> None:
    """Loads an object from an HDF5 file.

    Args:
        filename: The path to read.
        obj: An object with a ``serialize(serializer)`` method; arrays are loaded in place.

    Only the given file is read: a dataset whose data lives elsewhere (HDF5 external
    storage, a virtual dataset) and an external link (or a soft link whose path goes
    through one) are refused; soft links inside the file are followed. A dataset's shape
    and dtype are checked against the value it loads into, and its size against the bytes
    the file stores for it, before it is read.

    Raises:
        RuntimeError: If h5py is not installed.
        KeyError: If a key is missing (the message names it and the file).
        ValueError: If an array's shape or dtype does not fit the one it loads into, a
            value's data or a group lies outside the file, a group stands where an array is
            expected (or a dataset where a group is), or a dataset declares far more data
            than the file stores for it; the message names the key and the file.

    Example:
        >>> import os, tempfile, numpy as np
        >>> from chainlite import serializers
        >>> class Affine:
        ...     def __init__(self):
        ...         self.W = np.zeros(2, np.float32)
        ...     def serialize(self, serializer):
        ...         serializer('W', self.W)
        >>> a = Affine()
        >>> with tempfile.TemporaryDirectory() as d:
        ...     try:
        ...         serializers.save_hdf5(os.path.join(d, 'w.h5'), {'W': np.ones(2)})
        ...         serializers.load_hdf5(os.path.join(d, 'w.h5'), a)
        ...         assert (a.W == 1).all()
        ...     except RuntimeError as e:  # h5py is not installed
        ...         assert 'pip install h5py' in str(e)
    """
    h5py = _h5py()
    with h5py.File(os.fspath(filename), 'r') as f:
        HDF5Deserializer(f).load(obj)
