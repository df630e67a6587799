"""Spatial pyramid pooling: max pooling into 1, 4, 16, ... bins, flattened and concatenated."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from chainlite.functions.array import concat
from chainlite.functions.array import reshape
from chainlite.functions.pooling import max_pooling_2d
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def _invalid(expect, actual):
    raise type_check.InvalidType(
        expect, actual, msg='Invalid operation is performed in: spatial_pyramid_pooling_2d '
                            '(Forward)\n\nExpect: %s\nActual: %s' % (expect, actual))


def spatial_pyramid_pooling_2d(x: VariableOrArray, pyramid_height: int,
                               pooling: str | None = None) -> Variable:
    """Spatial pyramid pooling: a fixed-length feature whatever the input's spatial size.

    Level ``l`` (from 0) max-pools ``x`` into ``2^l x 2^l`` bins: windows of size
    ``k = ceil(h / 2^l)`` with stride ``k`` and padding ``(2^l * k - h) // 2`` (and likewise
    for the width), with ``cover_all``. The results of all levels are flattened per sample
    and concatenated along the channel axis.

    Args:
        x: A float Variable or array of shape ``(n, c, h, w)``.
        pyramid_height: Number of pyramid levels (a positive int).
        pooling: The pooling of each bin: ``'max'``, the only one Chainer supports. As in
            Chainer it must be given (None raises ``ValueError``).

    Returns:
        A Variable of shape ``(n, c * (1 + 4 + ... + 4^(pyramid_height - 1)), 1, 1)``.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
        >>> y = F.spatial_pyramid_pooling_2d(x, 2, pooling='max')
        >>> y.shape
        (1, 5, 1, 1)
        >>> y.array.ravel()
        array([15.,  5.,  7., 13., 15.])
    """
    if pooling != 'max':
        raise ValueError("spatial_pyramid_pooling_2d: pooling must be 'max', got %r"
                         % (pooling,))
    if isinstance(pyramid_height, bool) or not isinstance(pyramid_height, int) \
            or pyramid_height < 1:
        raise ValueError('spatial_pyramid_pooling_2d: pyramid_height must be a positive int, '
                         'got %r' % (pyramid_height,))
    if len(x.shape) != 4:
        _invalid('x.ndim == 4', 'x.ndim == %d' % len(x.shape))
    if x.dtype.kind != 'f':
        _invalid('x.dtype.kind == f', 'x.dtype.kind == %s' % x.dtype.kind)
    n, c, h, w = x.shape
    ys = []
    for level in range(pyramid_height):
        bins = 2 ** level
        kh, kw = math.ceil(h / bins), math.ceil(w / bins)
        pad = ((kh * bins - h) // 2, (kw * bins - w) // 2)
        y = max_pooling_2d.max_pooling_2d(x, (kh, kw), None, pad, cover_all=True)
        ys.append(reshape.reshape(y, (n, -1, 1, 1)))
    return ys[0] if len(ys) == 1 else concat.concat(ys, axis=1)
