"""Datasets of image files (and labels), read with Pillow when an example is accessed.

Pillow is optional: the classes raise :class:`ImportError` with the install command when it
is missing. Images come out as ``(channels, height, width)`` arrays (one channel for grey
images); the datasets do not resize, crop or convert colour modes, so a model must be given
images of one shape and mode.
"""
from __future__ import annotations

import bisect
import importlib.util
import io
import os
import threading
import zipfile
from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import configuration
from chainlite.dataset import dataset_mixin

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec


# Whether Pillow is installed (Chainer's flag; it is imported only when an image is read).
available = importlib.util.find_spec('PIL') is not None


def _pillow_image(owner: str) -> Any:
    # Pillow is imported on first use, so that chainlite does not need it.
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError('%s needs Pillow to read images: install it with `pip install Pillow` '
                          '(the import failed with: %s)' % (owner, e)) from e
    return Image


def _read_image(source: Any, dtype: numpy.dtype, owner: str) -> numpy.ndarray:
    # An image file (path or file object) as a (channels, height, width) array.
    with _pillow_image(owner).open(source) as image:
        array = numpy.asarray(image, dtype=dtype)
    return _postprocess_image(array)


def _check_pillow_availability() -> None:
    """Raises ImportError (saying how to install Pillow) unless Pillow imports."""
    _pillow_image('chainer.datasets.image_dataset')


def _read_image_as_array(path: Any, dtype: DTypeSpec) -> numpy.ndarray:
    """Reads an image file as an array as Pillow gives it: ``(height, width[, channels])``."""
    with _pillow_image('_read_image_as_array').open(path) as image:
        return numpy.asarray(image, dtype=dtype)


def _postprocess_image(image: numpy.ndarray) -> numpy.ndarray:
    """Turns ``(height, width[, channels])`` into ``(channels, height, width)`` (a view)."""
    if image.ndim == 2:
        image = image[..., None]
    return image.transpose(2, 0, 1)


def _read_pairs(path: str, owner: str) -> list:
    # A text file of "path label" lines (Caffe's format); blank lines are skipped.
    pairs = []
    with open(path) as f:
        for i, line in enumerate(f):
            pair = line.split()
            if not pair:
                continue
            if len(pair) != 2:
                raise ValueError('%s: line %d of %s is not "path label": %r'
                                 % (owner, i, path, line))
            pairs.append((pair[0], int(pair[1])))
    return pairs


class ImageDataset(dataset_mixin.DatasetMixin):
    """Images read from files, one per example, as ``(channels, height, width)`` arrays.

    Needs Pillow (``pip install Pillow``).

    Args:
        paths: A list of image paths, or the path of a text file with one image path per
            line. Image paths are relative to ``root``.
        root: The directory the image paths start from.
        dtype: The dtype of the arrays; ``chainlite.config.dtype`` (float32) by default.

    Raises:
        ImportError: Pillow is not installed.

    Example:
        >>> from chainlite.datasets import ImageDataset
        >>> try:
        ...     ds = ImageDataset(['cat.png', 'dog.png'], root='images')
        ... except ImportError as e:  # without Pillow
        ...     ds = None
        ...     assert 'pip install Pillow' in str(e)
        >>> ds is None or len(ds) == 2
        True
    """

    def __init__(self, paths: str | Sequence[str], root: str = '.',
                 dtype: DTypeSpec = None) -> None:
        _pillow_image('ImageDataset')
        if isinstance(paths, (str, os.PathLike)):
            with open(paths) as f:
                paths = [line.strip() for line in f if line.strip()]
        self._paths = paths
        self._root = root
        self._dtype = configuration.get_dtype(dtype)

    def __len__(self) -> int:
        return len(self._paths)

    def get_example(self, i: int) -> numpy.ndarray:
        return _read_image(os.path.join(self._root, self._paths[i]), self._dtype, 'ImageDataset')


class LabeledImageDataset(dataset_mixin.DatasetMixin):
    """Pairs of an image read from a file and its integer label.

    Needs Pillow (``pip install Pillow``).

    Args:
        pairs: A list of ``(path, label)`` pairs, or the path of a text file with one
            ``path label`` pair per line, separated by white space (Caffe's format). Image
            paths are relative to ``root``.
        root: The directory the image paths start from.
        dtype: The dtype of the images; ``chainlite.config.dtype`` (float32) by default.
        label_dtype: The dtype of the labels (0-dimensional arrays).

    Raises:
        ImportError: Pillow is not installed.
        ValueError: A line of the pairs file is not ``path label``.

    Example:
        >>> from chainlite.datasets import LabeledImageDataset
        >>> try:
        ...     ds = LabeledImageDataset([('cat.png', 0), ('dog.png', 1)], root='images')
        ... except ImportError:  # without Pillow
        ...     ds = None
        >>> ds is None or len(ds) == 2
        True
    """

    def __init__(self, pairs: str | Sequence[tuple[str, int]], root: str = '.',
                 dtype: DTypeSpec = None, label_dtype: DTypeSpec = numpy.int32) -> None:
        _pillow_image('LabeledImageDataset')
        if isinstance(pairs, (str, os.PathLike)):
            pairs = _read_pairs(pairs, 'LabeledImageDataset')
        self._pairs = pairs
        self._root = root
        self._dtype = configuration.get_dtype(dtype)
        self._label_dtype = label_dtype

    def __len__(self) -> int:
        return len(self._pairs)

    def get_example(self, i: int) -> tuple[numpy.ndarray, numpy.ndarray]:
        path, label = self._pairs[i]
        image = _read_image(os.path.join(self._root, path), self._dtype, 'LabeledImageDataset')
        return image, numpy.array(label, dtype=self._label_dtype)


class ZippedImageDataset(dataset_mixin.DatasetMixin):
    """The images of a zip archive (every file in it), in the archive's order.

    Besides an index, ``get_example`` accepts a file name inside the archive. The archive is
    reopened in a forked or unpickled process. Needs Pillow (``pip install Pillow``).

    Args:
        zipfilename: The path of the zip archive.
        dtype: The dtype of the images; ``chainlite.config.dtype`` (float32) by default.

    Raises:
        ImportError: Pillow is not installed.
    """

    def __init__(self, zipfilename: str, dtype: DTypeSpec = None) -> None:
        _pillow_image('ZippedImageDataset')
        self._zipfilename = zipfilename
        self._zf = zipfile.ZipFile(zipfilename)
        self._zf_pid = os.getpid()
        self._dtype = configuration.get_dtype(dtype)
        self._paths = [name for name in self._zf.namelist() if not name.endswith('/')]
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._paths)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state['_zf'] = None
        state['_lock'] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def get_example(self, i_or_filename: int | str) -> numpy.ndarray:
        if isinstance(i_or_filename, (int, numpy.integer)):
            name = self._paths[i_or_filename]
        else:
            name = i_or_filename
        with self._lock:
            if self._zf is None or self._zf_pid != os.getpid():
                self._zf_pid = os.getpid()
                self._zf = zipfile.ZipFile(self._zipfilename)
            data = self._zf.read(name)
        # Pillow seeks in the file, which a zip member does not allow: read it into memory.
        return _read_image(io.BytesIO(data), self._dtype, 'ZippedImageDataset')


class MultiZippedImageDataset(dataset_mixin.DatasetMixin):
    """The images of several zip archives, one archive after another.

    Needs Pillow (``pip install Pillow``).

    Args:
        zipfilenames: The paths of the zip archives.
        dtype: The dtype of the images; ``chainlite.config.dtype`` (float32) by default.

    Raises:
        ImportError: Pillow is not installed.
    """

    def __init__(self, zipfilenames: Sequence[str], dtype: DTypeSpec = None) -> None:
        self._zfs = [ZippedImageDataset(name, dtype) for name in zipfilenames]
        self._offsets = [0]
        for zf in self._zfs:
            self._offsets.append(self._offsets[-1] + len(zf))

    def __len__(self) -> int:
        return self._offsets[-1]

    def get_example(self, i: int) -> numpy.ndarray:
        k = bisect.bisect(self._offsets, i) - 1
        return self._zfs[k].get_example(i - self._offsets[k])


class LabeledZippedImageDataset(dataset_mixin.DatasetMixin):
    """Pairs of an image in a zip archive and its label, listed in a text file.

    Needs Pillow (``pip install Pillow``).

    Args:
        zipfilename: The path of the zip archive.
        labelfilename: A text file of ``name label`` lines, where ``name`` is a file in the
            archive.
        dtype: The dtype of the images; ``chainlite.config.dtype`` (float32) by default.
        label_dtype: The dtype of the labels (0-dimensional arrays).

    Raises:
        ImportError: Pillow is not installed.
        ValueError: A line of the label file is not ``name label``.
    """

    def __init__(self, zipfilename: str, labelfilename: str, dtype: DTypeSpec = None,
                 label_dtype: DTypeSpec = numpy.int32) -> None:
        _pillow_image('LabeledZippedImageDataset')
        self._pairs = _read_pairs(labelfilename, 'LabeledZippedImageDataset')
        self._label_dtype = label_dtype
        self._zipfile = ZippedImageDataset(zipfilename, dtype=dtype)

    def __len__(self) -> int:
        return len(self._pairs)

    def get_example(self, i: int) -> tuple[numpy.ndarray, numpy.ndarray]:
        name, label = self._pairs[i]
        return self._zipfile.get_example(name), numpy.array(label, dtype=self._label_dtype)
