"""CIFAR-10 and CIFAR-100, read from their binary distributions and cached as npz.

The binary archives (``cifar-10-binary.tar.gz``, ``cifar-100-binary.tar.gz``) hold fixed-size
records of raw bytes, so loading them never unpickles anything (the ``python`` archives that
Chainer reads are pickles). ``CIFAR_MIRRORS`` lists base URLs tried in order;
``CIFAR_SHA256`` maps each archive name to the SHA-256 it must have (None skips the check).
The npz caches have Chainer's name and keys (``pfnet/chainer/cifar/cifar-10.npz``).
"""
from __future__ import annotations

import os
import pickle
import tarfile
from typing import TYPE_CHECKING, Any

import numpy

from chainlite import configuration
from chainlite.dataset import download
from chainlite.datasets import _mnist_helper
from chainlite.datasets import tuple_dataset

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec

CIFAR_MIRRORS = (
    'https://www.cs.toronto.edu/~kriz/',
)
CIFAR_SHA256 = {
    'cifar-10-binary.tar.gz':
        'c4a38c50a1bc5f3a1c5537f2155ab9d68f9f25eb1ed8d9ddda3db29a59bca1dd',
    'cifar-100-binary.tar.gz':
        '58a81ae192c23a4be8b1804d68e518ed807d710a4eb253b1f2a199162a40d8ec',
}

_PIXELS = 3 * 32 * 32
# name -> (archive, training members, test member, label bytes per record, label column)
_LAYOUTS = {
    'cifar-10': ('cifar-10-binary.tar.gz',
                 ['cifar-10-batches-bin/data_batch_%d.bin' % i for i in range(1, 6)],
                 'cifar-10-batches-bin/test_batch.bin', 1, 0),
    # CIFAR-100 records start with the coarse then the fine label; Chainer uses the fine one.
    'cifar-100': ('cifar-100-binary.tar.gz', ['cifar-100-binary/train.bin'],
                  'cifar-100-binary/test.bin', 2, 1),
}


def get_cifar10(withlabel: bool = True, ndim: int = 3, scale: float = 1.,
                dtype: DTypeSpec = None) -> tuple[Any, Any]:
    """Returns the CIFAR-10 training set (50,000 images) and test set (10,000 images).

    `CIFAR-10 <https://www.cs.toronto.edu/~kriz/cifar.html>`_ holds 32x32 colour images in
    ten classes, one byte per channel value, scaled here to floats in ``[0, scale]``. The
    binary archive is downloaded on the first call from the first of ``CIFAR_MIRRORS`` that
    serves it, checked against ``CIFAR_SHA256`` and cached under the dataset root.

    Args:
        withlabel: If True, each example is an ``(image, label)`` tuple (int32 labels);
            else only the image.
        ndim: The image shape: 1 gives ``(3072,)``, 3 gives ``(3, 32, 32)``.
        scale: The value of a full-intensity channel.
        dtype: The image dtype; ``chainlite.config.dtype`` if None.

    Returns:
        ``(train, test)``: two :class:`~chainlite.datasets.TupleDataset` with labels, two
        image arrays without.

    Raises:
        ValueError: If ``ndim`` is not 1 or 3.
        OSError: If no mirror delivers the archive with the expected SHA-256.

    Example:
        >>> from chainlite.datasets import cifar
        >>> sorted(cifar.CIFAR_SHA256)
        ['cifar-10-binary.tar.gz', 'cifar-100-binary.tar.gz']
    """
    return _get_cifar('cifar-10', 'get_cifar10', withlabel, ndim, scale, dtype)


def get_cifar100(withlabel: bool = True, ndim: int = 3, scale: float = 1.,
                 dtype: DTypeSpec = None) -> tuple[Any, Any]:
    """Returns the CIFAR-100 training set (50,000 images) and test set (10,000 images).

    `CIFAR-100 <https://www.cs.toronto.edu/~kriz/cifar.html>`_ holds 32x32 colour images in
    100 fine classes (the labels returned here), one byte per channel value, scaled to floats
    in ``[0, scale]``. Downloaded and cached like :func:`get_cifar10`.

    Args:
        withlabel: If True, each example is an ``(image, label)`` tuple (int32 fine labels);
            else only the image.
        ndim: The image shape: 1 gives ``(3072,)``, 3 gives ``(3, 32, 32)``.
        scale: The value of a full-intensity channel.
        dtype: The image dtype; ``chainlite.config.dtype`` if None.

    Returns:
        ``(train, test)``: two :class:`~chainlite.datasets.TupleDataset` with labels, two
        image arrays without.

    Raises:
        ValueError: If ``ndim`` is not 1 or 3.
        OSError: If no mirror delivers the archive with the expected SHA-256.

    Example:
        >>> from chainlite.datasets import cifar
        >>> cifar.CIFAR_MIRRORS[0]
        'https://www.cs.toronto.edu/~kriz/'
    """
    return _get_cifar('cifar-100', 'get_cifar100', withlabel, ndim, scale, dtype)


def _get_cifar(name: str, caller: str, withlabel: bool, ndim: int, scale: float,
               dtype: Any) -> tuple:
    _mnist_helper.check_ndim(caller, ndim, (1, 3))
    dtype = configuration.get_dtype(dtype)
    archive_name, train_members, test_member, label_bytes, label_column = _LAYOUTS[name]

    def creator(path: str) -> dict:
        archive = download.cached_download([m + archive_name for m in CIFAR_MIRRORS],
                                           CIFAR_SHA256.get(archive_name))
        with tarfile.open(archive, 'r:gz') as tar:
            train_parts = [_read_records(tar, m, label_bytes) for m in train_members]
            test = _read_records(tar, test_member, label_bytes)
        train = numpy.concatenate(train_parts)
        raw = {'train_x': train[:, label_bytes:], 'train_y': train[:, label_column],
               'test_x': test[:, label_bytes:], 'test_y': test[:, label_column]}
        raw = {key: numpy.ascontiguousarray(value) for key, value in raw.items()}
        arrays: dict[str, Any] = raw
        numpy.savez_compressed(path, **arrays)
        return raw

    root = download.get_dataset_directory(os.path.join('pfnet', 'chainer', 'cifar'))
    raw = download.cache_or_load_file(os.path.join(root, name + '.npz'), creator,
                                      _mnist_helper.load_npz)
    return tuple(_preprocess(raw[split + '_x'], raw[split + '_y'], withlabel, ndim, scale, dtype)
                 for split in ('train', 'test'))


def _read_records(tar: tarfile.TarFile, member: str, label_bytes: int) -> numpy.ndarray:
    """Reads one binary batch as a ``(n, label_bytes + 3072)`` uint8 array."""
    try:
        f = tar.extractfile(member)
    except KeyError:
        f = None
    if f is None:
        raise ValueError('%s: no regular file %r in the archive' % (str(tar.name), member))
    with f:
        data = f.read()
    record = label_bytes + _PIXELS
    if len(data) % record:
        raise ValueError('%s: %d bytes is not a whole number of %d-byte records'
                         % (member, len(data), record))
    return numpy.frombuffer(data, numpy.uint8).reshape(-1, record)


def _preprocess(images: numpy.ndarray, labels: numpy.ndarray, withlabel: bool, ndim: int,
                scale: float, dtype: Any) -> Any:
    images = images.reshape((-1, _PIXELS) if ndim == 1 else (-1, 3, 32, 32)).astype(dtype)
    images *= scale / 255.
    if not withlabel:
        return images
    return tuple_dataset.TupleDataset(images, labels.astype(numpy.int32))


def _preprocess_cifar(images: numpy.ndarray, labels: numpy.ndarray, withlabel: bool, ndim: int,
                      scale: float, dtype: Any) -> Any:
    """Chainer's helper: flat uint8 CIFAR rows shaped (``ndim`` 1 or 3), scaled to
    ``[0, scale]`` in ``dtype`` (``config.dtype`` if None), with int32 labels if ``withlabel``.
    """
    _mnist_helper.check_ndim('_preprocess_cifar', ndim, (1, 3))
    return _preprocess(images, labels, withlabel, ndim, scale, configuration.get_dtype(dtype))


def _pickle_load(f: Any) -> Any:
    """Unpickles one batch of CIFAR's Python version (pickled by Python 2: latin-1 strings)."""
    return pickle.load(f, encoding='latin-1')
