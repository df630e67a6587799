"""The MNIST handwritten digits, downloaded from mirrors and cached as npz.

``MNIST_MIRRORS`` lists base URLs tried in order; ``MNIST_SHA256`` maps each file name to the
SHA-256 it must have (None skips the check). Both can be changed to add a local mirror.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import configuration
from chainlite.datasets import _mnist_helper

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec

MNIST_MIRRORS = (
    'https://ossci-datasets.s3.amazonaws.com/mnist/',
    'https://storage.googleapis.com/cvdf-datasets/mnist/',
)
MNIST_SHA256 = {
    'train-images-idx3-ubyte.gz':
        '440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609',
    'train-labels-idx1-ubyte.gz':
        '3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c',
    't10k-images-idx3-ubyte.gz':
        '8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6',
    't10k-labels-idx1-ubyte.gz':
        'f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6',
}


def get_mnist(withlabel: bool = True, ndim: int = 1, scale: float = 1., dtype: DTypeSpec = None,
              label_dtype: DTypeSpec = numpy.int32, rgb_format: bool = False) -> tuple[Any, ...]:
    """Returns the MNIST training set (60,000 images) and test set (10,000 images).

    `MNIST <http://yann.lecun.com/exdb/mnist/>`_ holds 28x28 grey images of handwritten
    digits with one byte per pixel, scaled here to floats in ``[0, scale]``. The files are
    downloaded on the first call from the first of ``MNIST_MIRRORS`` that serves them, checked
    against ``MNIST_SHA256`` and cached under the dataset root
    (:func:`chainlite.dataset.get_dataset_root`) in ``pfnet/chainer/mnist``.

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
        >>> from chainlite.datasets import mnist
        >>> mnist.MNIST_MIRRORS[0]  # where get_mnist() looks first
        'https://ossci-datasets.s3.amazonaws.com/mnist/'
    """
    _mnist_helper.check_ndim('get_mnist', ndim)
    dtype = configuration.get_dtype(dtype)
    return tuple(_mnist_helper.preprocess_images(
        'get_mnist', raw['x'], raw['y'], withlabel, ndim, scale, 255., dtype, label_dtype,
        rgb_format) for raw in (_retrieve_mnist_training(), _retrieve_mnist_test()))


def _retrieve_mnist_training() -> dict:
    """The raw training split, ``{'x': flat uint8 images, 'y': labels}`` (downloaded once)."""
    return _retrieve_split('train.npz', 'train')


def _retrieve_mnist_test() -> dict:
    """The raw test split, ``{'x': flat uint8 images, 'y': labels}`` (downloaded once)."""
    return _retrieve_split('test.npz', 't10k')


def _retrieve_split(npz_name: str, prefix: str) -> dict:
    # From the mirrors, each file checked against its SHA-256.
    return _mnist_helper.retrieve_idx_pair(
        'pfnet/chainer/mnist', npz_name, MNIST_MIRRORS, MNIST_SHA256,
        prefix + '-images-idx3-ubyte.gz', prefix + '-labels-idx1-ubyte.gz')


def _retrieve_mnist(name: str, urls: Any) -> dict:
    """Chainer's loader of one split: the pair at ``urls`` (image and label URLs, each a
    URL or a sequence of mirrors), cached as ``name`` beside the splits."""
    return _mnist_helper.retrieve_npz('pfnet/chainer/mnist', name, urls)
