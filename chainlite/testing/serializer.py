"""Round trips through a serializer, for testing an object's ``serialize`` method."""
from __future__ import annotations

import os
import tempfile
from typing import Any, Callable

from chainlite import serializers


def save_and_load(src: Any, dst: Any, filename: str, saver: Callable[[str, Any], Any],
                  loader: Callable[[str, Any], Any]) -> None:
    """Saves ``src`` with ``saver`` and loads the file into ``dst`` with ``loader``.

    The file lives in a temporary directory that is removed afterwards.

    Args:
        src: The object to save.
        dst: The object to load into.
        filename: The file's name inside the temporary directory.
        saver: Called as ``saver(path, src)``.
        loader: Called as ``loader(path, dst)``.
    """
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, filename)
        saver(path, src)
        loader(path, dst)


def save_and_load_npz(src: Any, dst: Any) -> None:
    """:func:`save_and_load` with :func:`~chainlite.serializers.save_npz` and ``load_npz``.

    Args:
        src: The object to save.
        dst: The object to load into.

    Example:
        >>> import chainlite.links as L
        >>> a, b = L.Linear(3, 2), L.Linear(3, 2)
        >>> save_and_load_npz(a, b)
        >>> bool((a.W.array == b.W.array).all())
        True
    """
    save_and_load(src, dst, 'tmp.npz', serializers.save_npz, serializers.load_npz)


def save_and_load_hdf5(src: Any, dst: Any) -> None:
    """:func:`save_and_load` with :func:`~chainlite.serializers.save_hdf5` (needs h5py).

    Args:
        src: The object to save.
        dst: The object to load into.
    """
    save_and_load(src, dst, 'tmp.h5', serializers.save_hdf5, serializers.load_hdf5)
