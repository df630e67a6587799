"""Deterministic, monotonically increasing arrays for converter tests."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec


def shaped_range(*shape: int, dtype: DTypeSpec = numpy.float32) -> numpy.ndarray:
    """``0, 1, 2, ...`` in the given shape (integers; ``dtype`` is accepted and unused)."""
    return numpy.arange(int(numpy.prod(shape))).reshape(shape)


def _increasing(shape, dtype, negative=True, bias=0.0):
    r = shaped_range(*shape)
    if negative:
        r = r - r.size // 2
    if numpy.dtype(dtype).kind == 'f':
        r = r * 0.5
    return (r + bias).astype(dtype)


def increasing(*shape: int, dtype: DTypeSpec = numpy.float32) -> numpy.ndarray:
    """Steps of 0.5 (1 for integer dtypes) centred on zero: negatives, zero and fractions.

    Example:
        >>> increasing(2, 3)
        array([[-1.5, -1. , -0.5],
               [ 0. ,  0.5,  1. ]], dtype=float32)
    """
    return _increasing(shape, dtype)


def nonzero_increasing(*shape: int, dtype: DTypeSpec = numpy.float32,
                       bias: float = 1e-7) -> numpy.ndarray:
    """:func:`increasing` shifted by ``bias``, so no element is zero (for divisors).

    Example:
        >>> bool((nonzero_increasing(2, 3) != 0).all())
        True
    """
    if numpy.dtype(dtype).kind != 'f':
        raise ValueError('nonzero_increasing: a float dtype is expected, got %s' % dtype)
    return _increasing(shape, dtype, bias=bias)


def positive_increasing(*shape: int, dtype: DTypeSpec = numpy.float32,
                        bias: float = 1e-7) -> numpy.ndarray:
    """Steps of 0.5 from ``bias`` up: positive only (for log, sqrt...).

    Example:
        >>> float(positive_increasing(2, 2).min()) > 0
        True
    """
    if numpy.dtype(dtype).kind != 'f':
        raise ValueError('positive_increasing: a float dtype is expected, got %s' % dtype)
    return _increasing(shape, dtype, negative=False, bias=bias)
