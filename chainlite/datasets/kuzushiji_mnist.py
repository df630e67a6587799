"""Kuzushiji-MNIST (cursive Japanese hiragana), downloaded from mirrors and cached as npz.

``KUZUSHIJI_MNIST_MIRRORS`` lists base URLs tried in order; ``KUZUSHIJI_MNIST_SHA256`` maps
each file name to the SHA-256 it must have (None skips the check). The SHA-256 check is what
makes the plain-HTTP fallback safe. The npz caches have Chainer's names
(``pfnet/chainer/kuzushiji_mnist/train.npz`` and ``test.npz``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import configuration
from chainlite.datasets import _mnist_helper

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec

KUZUSHIJI_MNIST_MIRRORS = (
    'https://codh.rois.ac.jp/kmnist/dataset/kmnist/',
    'http://codh.rois.ac.jp/kmnist/dataset/kmnist/',
)
KUZUSHIJI_MNIST_SHA256 = {
    'train-images-idx3-ubyte.gz':
        '51467d22d8cc72929e2a028a0428f2086b092bb31cfb79c69cc0a90ce135fde4',
    'train-labels-idx1-ubyte.gz':
        'e38f9ebcd0f3ebcdec7fc8eabdcdaef93bb0df8ea12bee65224341c8183d8e17',
    't10k-images-idx3-ubyte.gz':
        'edd7a857845ad6bb1d0ba43fe7e794d164fe2dce499a1694695a792adfac43c5',
    't10k-labels-idx1-ubyte.gz':
        '20bb9a0ef54c7db3efc55a92eef5582c109615df22683c380526788f98e42a1c',
}

# (romaji, hiragana) of the ten classes, indexed by label
_LABELS = (('o', '\u304a'), ('ki', '\u304d'), ('su', '\u3059'), ('tsu', '\u3064'),
           ('na', '\u306a'), ('ha', '\u306f'), ('ma', '\u307e'), ('ya', '\u3084'),
           ('re', '\u308c'), ('wo', '\u3092'))


def get_kuzushiji_mnist_labels() -> list[tuple[str, str]]:
    """Returns the ten Kuzushiji-MNIST classes, indexed by label.

    Returns:
        A new list of ten ``(romaji, character)`` tuples of strings, e.g. ``('o', 'お')``.

    Example:
        >>> from chainlite.datasets import get_kuzushiji_mnist_labels
        >>> get_kuzushiji_mnist_labels()[1]
        ('ki', 'き')
    """
    return list(_LABELS)


def get_kuzushiji_mnist(withlabel: bool = True, ndim: int = 1, scale: float = 1.,
                        dtype: DTypeSpec = None, label_dtype: DTypeSpec = numpy.int32,
                        rgb_format: bool = False) -> tuple[Any, ...]:
    """Returns the Kuzushiji-MNIST training set (60,000 images) and test set (10,000 images).

    `Kuzushiji-MNIST <http://codh.rois.ac.jp/kmnist/>`_ holds 28x28 grey images of ten
    hand-written cursive hiragana (see :func:`get_kuzushiji_mnist_labels`), stored like MNIST;
    pixels are scaled to floats in ``[0, scale]``. The files are downloaded on the first call
    from the first of ``KUZUSHIJI_MNIST_MIRRORS`` that serves them, checked against
    ``KUZUSHIJI_MNIST_SHA256`` and cached under the dataset root in
    ``pfnet/chainer/kuzushiji_mnist``.

    Args:
        withlabel: If True, each example is an ``(image, label)`` tuple; else only the image.
        ndim: The image shape: 1 gives ``(784,)``, 2 gives ``(28, 28)``, 3 gives
            ``(1, 28, 28)``.
        scale: The value of a white pixel.
        dtype: The image dtype; ``chainlite.config.dtype`` if None.
        label_dtype: The label dtype.
        rgb_format: With ``ndim=3``, repeat the grey channel into ``(3, 28, 28)``.

    Returns:
        ``(train, test)``: two :class:`~chainlite.datasets.TupleDataset` with labels, two
        image arrays without.

    Raises:
        ValueError: If ``ndim`` is not 1, 2 or 3.
        OSError: If no mirror delivers a file with the expected SHA-256.

    Example:
        >>> from chainlite.datasets import kuzushiji_mnist
        >>> sorted(kuzushiji_mnist.KUZUSHIJI_MNIST_SHA256)[0]
        't10k-images-idx3-ubyte.gz'
    """
    _mnist_helper.check_ndim('get_kuzushiji_mnist', ndim)
    dtype = configuration.get_dtype(dtype)
    splits = _retrieve_kuzushiji_mnist_training(), _retrieve_kuzushiji_mnist_test()
    return tuple(_mnist_helper.preprocess_images(
        'get_kuzushiji_mnist', raw['x'], raw['y'], withlabel, ndim, scale, 255., dtype,
        label_dtype, rgb_format) for raw in splits)


def _retrieve_kuzushiji_mnist_training() -> dict:
    """The raw training split, ``{'x': flat uint8 images, 'y': labels}`` (downloaded once)."""
    return _retrieve_split('train.npz', 'train')


def _retrieve_kuzushiji_mnist_test() -> dict:
    """The raw test split, ``{'x': flat uint8 images, 'y': labels}`` (downloaded once)."""
    return _retrieve_split('test.npz', 't10k')


def _retrieve_split(npz_name: str, prefix: str) -> dict:
    # From the mirrors, each file checked against its SHA-256.
    return _mnist_helper.retrieve_idx_pair(
        'pfnet/chainer/kuzushiji_mnist', npz_name, KUZUSHIJI_MNIST_MIRRORS, KUZUSHIJI_MNIST_SHA256,
        prefix + '-images-idx3-ubyte.gz', prefix + '-labels-idx1-ubyte.gz')


def _retrieve_kuzushiji_mnist(name: str, urls: Any) -> dict:
    """Chainer's loader of one split: the pair at ``urls`` (image and label URLs, each a
    URL or a sequence of mirrors), cached as ``name`` beside the splits."""
    return _mnist_helper.retrieve_npz('pfnet/chainer/kuzushiji_mnist', name, urls)
