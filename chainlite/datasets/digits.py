"""The UCI handwritten digits (8x8 images), shipped inside the package: no download needed.

The file ``data/digits.csv.gz`` is the test part of the UCI "Optical Recognition of
Handwritten Digits" data set (E. Alpaydin and C. Kaynak, 1998,
https://archive.ics.uci.edu/dataset/80), licensed CC BY 4.0; see ``data/README.md``.
"""
from __future__ import annotations

import functools
import gzip
import importlib.resources
from typing import TYPE_CHECKING, Any

import numpy

from chainlite import configuration
from chainlite.datasets import _mnist_helper

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec


def get_digits(withlabel: bool = True, ndim: int = 1, scale: float = 1., dtype: DTypeSpec = None,
               label_dtype: DTypeSpec = numpy.int32, rgb_format: bool = False,
               test_ratio: float = 0.2, seed: int = 0) -> tuple[Any, ...]:
    """Returns a training set and a test set of 8x8 handwritten digits (1,797 images).

    The images ship with chainlite, so this works offline. Pixels hold 0..16 in the file and
    are scaled to floats in ``[0, scale]``; labels are the digits 0..9. The examples are
    shuffled by a fixed permutation of ``seed`` and the first ``test_ratio`` of them form the
    test set, so the split is the same on every call and every machine. Arguments and return
    values follow :func:`~chainlite.datasets.get_mnist`.

    Args:
        withlabel: If True, each example is an ``(image, label)`` tuple; else only the image.
        ndim: The image shape: 1 gives ``(64,)``, 2 gives ``(8, 8)``, 3 gives ``(1, 8, 8)``.
        scale: The value of a full-intensity pixel.
        dtype: The image dtype; ``chainlite.config.dtype`` if None.
        label_dtype: The label dtype.
        rgb_format: With ``ndim=3``, repeat the grey channel into ``(3, 8, 8)``.
        test_ratio: The fraction of examples in the test set, in ``(0, 1)``.
        seed: The seed of the shuffle that decides the split.

    Returns:
        ``(train, test)``: two :class:`~chainlite.datasets.TupleDataset` with labels, two
        image arrays without.

    Raises:
        ValueError: If ``ndim`` is not 1, 2 or 3, or ``test_ratio`` is not in ``(0, 1)``.

    Example:
        >>> from chainlite.datasets import get_digits
        >>> train, test = get_digits()
        >>> len(train), len(test)
        (1438, 359)
        >>> x, t = train[0]
        >>> x.shape, x.dtype, int(t) in range(10)
        ((64,), dtype('float32'), True)
    """
    _mnist_helper.check_ndim('get_digits', ndim)
    if not 0 < test_ratio < 1:
        raise ValueError('get_digits: test_ratio must be in (0, 1), got %r' % (test_ratio,))
    dtype = configuration.get_dtype(dtype)
    images, labels = _load()
    order = numpy.random.RandomState(seed).permutation(len(images))
    n_test = int(round(len(images) * test_ratio))
    return tuple(_mnist_helper.preprocess_images(
        'get_digits', images[index], labels[index], withlabel, ndim, scale, 16., dtype,
        label_dtype, rgb_format) for index in (order[n_test:], order[:n_test]))


@functools.lru_cache(maxsize=1)
def _load() -> tuple:
    """Parses the shipped CSV once: uint8 images ``(1797, 64)`` and labels ``(1797,)``."""
    resource = importlib.resources.files('chainlite.datasets').joinpath('data/digits.csv.gz')
    with resource.open('rb') as raw, gzip.open(raw, 'rt') as f:
        table = numpy.loadtxt(f, delimiter=',', dtype=numpy.uint8, ndmin=2)
    images, labels = table[:, :64], table[:, 64]
    images.flags.writeable = False
    labels.flags.writeable = False
    return images, labels
