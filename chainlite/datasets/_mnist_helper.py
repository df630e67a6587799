"""Shared by the MNIST-like loaders: IDX parsing, npz caching and image preprocessing."""
from __future__ import annotations

import gzip
import os
import struct
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

import numpy

from chainlite.dataset import download
from chainlite.datasets import tuple_dataset

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec

_IDX_UBYTE = 0x08


def check_ndim(caller: str, ndim: int, allowed: Sequence[int] = (1, 2, 3)) -> None:
    """Raises ValueError unless ``ndim`` is allowed (checked before anything is downloaded)."""
    if ndim not in allowed:
        raise ValueError('%s: ndim must be one of %s, got %r'
                         % (caller, ', '.join(map(str, allowed)), ndim))


def read_idx_ubyte(path: str) -> numpy.ndarray:
    """Reads a gzipped IDX file of unsigned bytes (MNIST's format) into a uint8 array."""
    with gzip.open(path, 'rb') as f:
        data = f.read()
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] != _IDX_UBYTE:
        raise ValueError('%s is not an IDX file of unsigned bytes' % path)
    ndim = data[3]
    header = 4 + 4 * ndim
    shape = struct.unpack('>%dI' % ndim, data[4:header])
    size = int(numpy.prod(shape))
    if len(data) - header != size:
        raise ValueError('%s: IDX header promises %s = %d bytes, the file holds %d'
                         % (path, shape, size, len(data) - header))
    return numpy.frombuffer(data, numpy.uint8, offset=header).reshape(shape)


def load_npz(path: str) -> dict:
    """Loads every array of an npz file into a dict and closes the file."""
    with numpy.load(path, allow_pickle=False) as f:
        return {key: f[key] for key in f.files}


def retrieve_idx_pair(dataset_name: str, npz_name: str, mirrors: Sequence[str],
                      sha256s: Mapping[str, Optional[str]], image_file: str,
                      label_file: str) -> dict:
    """Downloads an image/label pair of IDX files once and caches it as ``{'x', 'y'}`` npz."""

    def creator(path: str) -> dict:
        return _save_pair(path, dataset_name, *(
            download.cached_download([m + name for m in mirrors], sha256s.get(name))
            for name in (image_file, label_file)))

    path = os.path.join(download.get_dataset_directory(dataset_name), npz_name)
    return download.cache_or_load_file(path, creator, load_npz)


def preprocess_images(caller: str, images: numpy.ndarray, labels: numpy.ndarray,
                      withlabel: bool, ndim: int, scale: float, max_value: float,
                      dtype: DTypeSpec, label_dtype: DTypeSpec, rgb_format: bool) -> Any:
    """Shapes square grey images (one flat row each), scales them to ``[0, scale]``, pairs labels.

    ``ndim`` 1 keeps rows, 2 gives ``(side, side)``, 3 gives ``(1, side, side)`` or, with
    ``rgb_format``, the grey channel repeated three times. Returns a
    :class:`~chainlite.datasets.TupleDataset` with labels, the image array without.
    """
    side = int(round(images.shape[1] ** 0.5))
    if ndim == 2:
        images = images.reshape(-1, side, side)
    elif ndim == 3:
        images = images.reshape(-1, 1, side, side)
        if rgb_format:
            images = numpy.broadcast_to(images, (len(images), 3, side, side))
    else:
        check_ndim(caller, ndim)
    images = images.astype(dtype)
    images *= scale / max_value
    if not withlabel:
        return images
    return tuple_dataset.TupleDataset(images, labels.astype(label_dtype))


def _save_pair(path: str, what: str, image_path: str, label_path: str) -> dict:
    # Reads an image/label pair of IDX files and saves them to `path` as npz {'x', 'y'}.
    images, labels = read_idx_ubyte(image_path), read_idx_ubyte(label_path)
    if len(images) != len(labels):
        raise RuntimeError('%s: %d images but %d labels: wrong pair of IDX files'
                           % (what, len(images), len(labels)))
    raw: dict[str, Any] = {'x': images.reshape(len(images), -1), 'y': labels.reshape(-1)}
    numpy.savez_compressed(path, **raw)
    return raw


def make_npz(path: str, urls: Sequence[Any]) -> dict:
    """Downloads an MNIST-format image/label pair and saves it to ``path`` as npz.

    Chainer's helper behind its MNIST-like loaders.

    Args:
        path: Where the npz file is written.
        urls: ``(images, labels)``: each the URL of a gzipped IDX file, or a sequence of
            mirror URLs of it (downloaded once, see
            :func:`chainlite.dataset.cached_download`).

    Returns:
        ``{'x': images, 'y': labels}``: one flat uint8 row per image, and the labels.

    Raises:
        RuntimeError: If the numbers of images and labels differ.
        ValueError: If a file is not an IDX file of unsigned bytes.
    """
    x_url, y_url = urls
    return _save_pair(path, 'make_npz', download.cached_download(x_url),
                      download.cached_download(y_url))


def retrieve_npz(dataset_name: str, npz_name: str, urls: Sequence[Any]) -> dict:
    """Returns the pair :func:`make_npz` saves, cached as ``npz_name`` in ``dataset_name``."""
    path = os.path.join(download.get_dataset_directory(dataset_name), npz_name)
    return download.cache_or_load_file(path, lambda p: make_npz(p, urls), load_npz)


def preprocess_mnist(raw: Mapping[str, numpy.ndarray], withlabel: bool, ndim: int,
                     scale: float, image_dtype: DTypeSpec, label_dtype: DTypeSpec,
                     rgb_format: bool) -> Any:
    """Shapes, scales and labels a raw MNIST-like split (Chainer's helper of this name).

    Args:
        raw: ``{'x': flat uint8 images, 'y': labels}`` as :func:`make_npz` returns.
        withlabel: Whether to pair each image with its label.
        ndim: 1 gives flat rows, 2 ``(28, 28)``, 3 ``(1, 28, 28)``.
        scale: The value of a white pixel.
        image_dtype: The image dtype.
        label_dtype: The label dtype.
        rgb_format: With ``ndim=3``, repeat the grey channel three times.

    Returns:
        A :class:`~chainlite.datasets.TupleDataset` with labels, else the image array.

    Raises:
        ValueError: If ``ndim`` is not 1, 2 or 3.
    """
    return preprocess_images('preprocess_mnist', raw['x'], raw['y'], withlabel, ndim, scale,
                             255., image_dtype, label_dtype, rgb_format)
