"""Fashion-MNIST (Zalando's article images), downloaded from mirrors and cached as npz.

``FASHION_MNIST_MIRRORS`` lists base URLs tried in order; ``FASHION_MNIST_SHA256`` maps each
file name to the SHA-256 it must have (None skips the check). The official host serves plain
HTTP only; the SHA-256 check is what makes it safe as a fallback.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import configuration
from chainlite.datasets import _mnist_helper

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec

FASHION_MNIST_MIRRORS = (
    'https://raw.githubusercontent.com/zalandoresearch/fashion-mnist/master/data/fashion/',
    'http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/',
)
FASHION_MNIST_SHA256 = {
    'train-images-idx3-ubyte.gz':
        '3aede38d61863908ad78613f6a32ed271626dd12800ba2636569512369268a84',
    'train-labels-idx1-ubyte.gz':
        'a04f17134ac03560a47e3764e11b92fc97de4d1bfaf8ba1a3aa29af54cc90845',
    't10k-images-idx3-ubyte.gz':
        '346e55b948d973a97e58d2351dde16a484bd415d4595297633bb08f03db6a073',
    't10k-labels-idx1-ubyte.gz':
        '67da17c76eaffca5446c3361aaab5c3cd6d1c2608764d35dfb1850b086bf8dd5',
}

_LABELS = ('T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat', 'Sandal', 'Shirt',
           'Sneaker', 'Bag', 'Ankle boot')


def get_fashion_mnist_labels() -> list[str]:
    """Returns the names of the ten Fashion-MNIST classes, indexed by label.

    Returns:
        A new list of ten strings.

    Example:
        >>> from chainlite.datasets import get_fashion_mnist_labels
        >>> get_fashion_mnist_labels()[9]
        'Ankle boot'
    """
    return list(_LABELS)


def get_fashion_mnist(withlabel: bool = True, ndim: int = 1, scale: float = 1.,
                      dtype: DTypeSpec = None, label_dtype: DTypeSpec = numpy.int32,
                      rgb_format: bool = False) -> tuple[Any, ...]:
    """Returns the Fashion-MNIST training set (60,000 images) and test set (10,000 images).

    `Fashion-MNIST <https://github.com/zalandoresearch/fashion-mnist>`_ holds 28x28 grey
    images of clothes in ten classes (see :func:`get_fashion_mnist_labels`), stored like
    MNIST; pixels are scaled to floats in ``[0, scale]``. The files are downloaded on the
    first call from the first of ``FASHION_MNIST_MIRRORS`` that serves them, checked against
    ``FASHION_MNIST_SHA256`` and cached under the dataset root in
    ``pfnet/chainer/fashion-mnist``.

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
        >>> from chainlite.datasets import fashion_mnist
        >>> len(fashion_mnist.FASHION_MNIST_SHA256)  # four files: train/test images/labels
        4
    """
    _mnist_helper.check_ndim('get_fashion_mnist', ndim)
    dtype = configuration.get_dtype(dtype)
    return tuple(_mnist_helper.preprocess_images(
        'get_fashion_mnist', raw['x'], raw['y'], withlabel, ndim, scale, 255., dtype, label_dtype,
        rgb_format) for raw in (_retrieve_fashion_mnist_training(), _retrieve_fashion_mnist_test()))


def _retrieve_fashion_mnist_training() -> dict:
    """The raw training split, ``{'x': flat uint8 images, 'y': labels}`` (downloaded once)."""
    return _retrieve_split('train.npz', 'train')


def _retrieve_fashion_mnist_test() -> dict:
    """The raw test split, ``{'x': flat uint8 images, 'y': labels}`` (downloaded once)."""
    return _retrieve_split('test.npz', 't10k')


def _retrieve_split(npz_name: str, prefix: str) -> dict:
    # From the mirrors, each file checked against its SHA-256.
    return _mnist_helper.retrieve_idx_pair(
        'pfnet/chainer/fashion-mnist', npz_name, FASHION_MNIST_MIRRORS, FASHION_MNIST_SHA256,
        prefix + '-images-idx3-ubyte.gz', prefix + '-labels-idx1-ubyte.gz')


def _retrieve_fashion_mnist(name: str, urls: Any) -> dict:
    """Chainer's loader of one split: the pair at ``urls`` (image and label URLs, each a
    URL or a sequence of mirrors), cached as ``name`` beside the splits."""
    return _mnist_helper.retrieve_npz('pfnet/chainer/fashion-mnist', name, urls)
