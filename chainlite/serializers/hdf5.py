"""HDF5 serialization through h5py (optional: ``pip install h5py``, or the extra
``pip install "chainlite-dl[hdf5]"``).

The hierarchy maps onto HDF5 groups (``/predictor/l1/W``); None is stored as an empty
dataset, as in Chainer. Without h5py, this module still imports, and its classes and
functions raise a RuntimeError saying how to install it when they are used.
"""
from __future__ import annotations

import importlib.util
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
        group = None if self.group is None else self.group.get(key)
        child = HDF5Deserializer(group if isinstance(group, _h5py().Group) else None,
                                 strict=self.strict)
        if child.group is None:
            child._missing = ('group %r of %s' % (key, _source_name(self.group))
                              if self._missing is None else self._missing)
        return child

    def __call__(self, key: str, value: Any) -> Any:
        key = key.lstrip('/')
        if self.group is None or key not in self.group:
            if not self.strict:
                return value
            where = self._missing or _source_name(self.group)
            raise KeyError('%r is not in %s (load with strict=False to skip missing entries)'
                           % (key, where))
        dataset = self.group[key]
        if dataset.shape is None:  # h5py.Empty: a saved None
            stored = None
        elif _h5py().check_string_dtype(dataset.dtype) is not None:
            # h5py reads strings as bytes: decode them (to a str array, not objects).
            stored = numpy.asarray(dataset.asstr()[()], dtype=str)
        else:
            stored = dataset[()]
        return _values.restore(key, _source_name(self.group), stored, value)


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

    Raises:
        RuntimeError: If h5py is not installed.
        KeyError: If a key is missing (the message names it and the file).
        ValueError: If an array's shape or dtype does not fit the one it loads into.

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
