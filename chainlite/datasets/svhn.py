"""SVHN (Street View House Numbers, cropped digits), read from its ``.mat`` files and cached.

The distributed files (``train_32x32.mat``, ``test_32x32.mat``, ``extra_32x32.mat``) are
MATLAB v5 files, read with :func:`scipy.io.loadmat` (plain arrays; nothing is unpickled).
``SVHN_MIRRORS`` lists base URLs tried in order; ``SVHN_SHA256`` maps each file name to the
SHA-256 it must have (None skips the check). The host serves plain HTTP only; the SHA-256
check is what makes it safe. The npz caches have Chainer's names and layout
(``pfnet/chainer/svhn/train.npz``: ``x`` of shape ``(32, 32, 3, n)``, ``y`` of ``(n, 1)``,
labels 1 to 10 as in the files).
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy

from chainlite import configuration
from chainlite.dataset import download
from chainlite.datasets import _mnist_helper
from chainlite.datasets import tuple_dataset

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec

SVHN_MIRRORS = (
    'http://ufldl.stanford.edu/housenumbers/',
)
SVHN_SHA256 = {
    'train_32x32.mat': '435e94d69a87fde4fd4d7f3dd208dfc32cb6ae8af2240d066de1df7508d083b8',
    'test_32x32.mat': 'cdce80dfb2a2c4c6160906d0bd7c68ec5a99d7ca4831afa54f09182025b6a75b',
    'extra_32x32.mat': 'a133a4beb38a00fcdda90c9489e0c04f900b660ce8a316a5e854838379a71eb3',
}


def get_svhn(withlabel: bool = True, scale: float = 1., dtype: DTypeSpec = None,
             label_dtype: DTypeSpec = numpy.int32, add_extra: bool = False) -> tuple[Any, ...]:
    """Returns the SVHN training set (73,257 images), test set (26,032) and optionally extra.

    `SVHN <http://ufldl.stanford.edu/housenumbers/>`_ holds 32x32 colour crops of house-number
    digits from Street View images. Each image has shape ``(3, 32, 32)`` with channel values
    scaled to floats in ``[0, scale]``; labels are the digits 0 to 9 (the files' label 10 for
    the digit 0 becomes 0). The files are downloaded on the first call from the first of
    ``SVHN_MIRRORS`` that serves them, checked against ``SVHN_SHA256`` and cached under the
    dataset root in ``pfnet/chainer/svhn``. Unlike :func:`get_mnist` there is no ``ndim``.

    Args:
        withlabel: If True, each example is an ``(image, label)`` tuple; else only the image.
        scale: The value of a full-intensity channel.
        dtype: The image dtype; ``chainlite.config.dtype`` if None.
        label_dtype: The label dtype.
        add_extra: Also return the 531,131 "extra" training images (a 1.3 GB download).

    Returns:
        ``(train, test)``, or ``(train, test, extra)`` with ``add_extra``: each a
        :class:`~chainlite.datasets.TupleDataset` with labels, an image array without.

    Raises:
        OSError: If no mirror delivers a file with the expected SHA-256.
        ValueError: If a file does not hold SVHN's ``X`` and ``y`` arrays.

    Example:
        >>> from chainlite.datasets import svhn
        >>> sorted(svhn.SVHN_SHA256)
        ['extra_32x32.mat', 'test_32x32.mat', 'train_32x32.mat']
    """
    dtype = configuration.get_dtype(dtype)
    splits = ['train', 'test'] + (['extra'] if add_extra else [])
    return tuple(_preprocess(_retrieve(split), withlabel, scale, dtype, label_dtype)
                 for split in splits)


def _retrieve(split: str) -> dict:
    # From the mirrors, checked against the file's SHA-256.
    mat_name = split + '_32x32.mat'
    return _retrieve_svhn(split + '.npz', [m + mat_name for m in SVHN_MIRRORS],
                          SVHN_SHA256.get(mat_name))


def _retrieve_svhn_training() -> dict:
    """The raw training split: ``{'x': (32, 32, 3, n) uint8 images, 'y': (n, 1) labels}``."""
    return _retrieve('train')


def _retrieve_svhn_test() -> dict:
    """The raw test split, as :func:`_retrieve_svhn_training` gives it."""
    return _retrieve('test')


def _retrieve_svhn_extra() -> dict:
    """The raw extra split (a 1.3 GB download), as :func:`_retrieve_svhn_training` gives it."""
    return _retrieve('extra')


def _retrieve_svhn(name: str, url: Any, sha256: Any = None) -> dict:
    """The split at ``url`` (a URL or a sequence of mirrors), cached as ``name``."""
    root = download.get_dataset_directory(os.path.join('pfnet', 'chainer', 'svhn'))
    return download.cache_or_load_file(os.path.join(root, name),
                                       lambda path: _make_npz(path, url, sha256),
                                       _mnist_helper.load_npz)


def _make_npz(path: str, url: Any, sha256: Any = None) -> dict:
    """Downloads one SVHN ``.mat`` file and saves its images and labels to ``path`` as npz.

    Args:
        path: Where the npz file is written.
        url: The URL of the file, or a sequence of mirror URLs of it.
        sha256: The file's expected SHA-256, or None not to check it.

    Returns:
        ``{'x': (32, 32, 3, n) uint8 images, 'y': (n, 1) uint8 labels}``.

    Raises:
        ValueError: If the file is not a MATLAB file holding SVHN's ``X`` and ``y``.
    """
    from scipy import io  # deferred: SciPy is only needed to build the cache once

    mat_name = os.path.basename(url if isinstance(url, str) else url[0])
    mat_path = download.cached_download(url, sha256)
    try:
        mat = io.loadmat(mat_path, variable_names=('X', 'y'))
    except Exception as e:
        raise ValueError('get_svhn: %s is not a readable MATLAB file: %s'
                         % (mat_name, e)) from e
    images, labels = mat.get('X'), mat.get('y')
    if images is None or labels is None:
        raise ValueError('get_svhn: %s lacks the arrays X and y (found %s)'
                         % (mat_name, sorted(k for k in mat if not k.startswith('__'))))
    if images.ndim != 4 or images.shape[2] != 3 or labels.size != images.shape[3]:
        raise ValueError('get_svhn: %s holds X of shape %s and y of shape %s; expected '
                         '(height, width, 3, n) images and n labels'
                         % (mat_name, images.shape, labels.shape))
    raw = {'x': images.astype(numpy.uint8), 'y': labels.reshape(-1, 1).astype(numpy.uint8)}
    numpy.savez_compressed(path, **raw)
    return raw


def _preprocess(raw: dict, withlabel: bool, scale: float, dtype: Any, label_dtype: Any) -> Any:
    # (height, width, channel, n) -> (n, channel, height, width)
    images = raw['x'].transpose(3, 2, 0, 1).astype(dtype, order='C')
    images *= scale / 255.
    if not withlabel:
        return images
    labels = raw['y'].reshape(-1).astype(label_dtype)
    labels[labels == 10] = 0  # the files label the digit 0 as 10
    return tuple_dataset.TupleDataset(images, labels)


# Chainer's name of _preprocess.
_preprocess_svhn = _preprocess
