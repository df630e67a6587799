"""Image helpers: :func:`oversample` (ten-crop)."""
from __future__ import annotations

from typing import Sequence

import numpy

from chainlite import backend


def oversample(images: Sequence[numpy.ndarray], crop_dims: tuple[int, int]) -> numpy.ndarray:
    """Crops each image at its four corners and center, and adds their mirror images.

    The classic ten-crop test-time augmentation (Caffe's ``oversample``).

    Args:
        images: Images of one shape ``(C, H, W)``.
        crop_dims: The crop size ``(h, w)``, at most ``(H, W)``.

    Returns:
        An array ``(10 * len(images), C, h, w)`` on the images' device: for each image, the
        crops at the top-left, top-right, bottom-left, bottom-right corners and the center,
        then the same five flipped left to right.

    Example:
        >>> import numpy as np
        >>> img = np.arange(16, dtype=np.float32).reshape(1, 4, 4)
        >>> crops = oversample([img], (2, 2))
        >>> crops.shape, crops[0, 0].tolist(), crops[5, 0].tolist()
        ((10, 1, 2, 2), [[0.0, 1.0], [4.0, 5.0]], [[1.0, 0.0], [5.0, 4.0]])
    """
    c, h, w = images[0].shape
    dh, dw = crop_dims
    if dh > h or dw > w:
        raise ValueError('crop_dims %r exceed the image size %r' % ((dh, dw), (h, w)))
    # Top-left corners of the crops; the center one is rounded toward the top-left.
    corners = [(0, 0), (0, w - dw), (h - dh, 0), (h - dh, w - dw),
               (int(h / 2.0 - dh / 2.0), int(w / 2.0 - dw / 2.0))]
    xp = backend.get_array_module(images[0])
    out = xp.empty((10 * len(images), c, dh, dw), dtype=images[0].dtype)
    for i, img in enumerate(images):
        crops = out[10 * i:10 * i + 10]
        for k, (y, x) in enumerate(corners):
            crops[k] = img[:, y:y + dh, x:x + dw]
        crops[5:] = crops[:5, :, :, ::-1]
    return out
