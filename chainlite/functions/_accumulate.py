"""Sums that do not overflow in float16: they accumulate in float32 (as Chainer's losses do
since chainer#6702); the caller casts the result back to the input's dtype."""
from __future__ import annotations

import numpy

_F16 = numpy.dtype(numpy.float16)


def wide_sum(a: numpy.ndarray, axis: int | tuple[int, ...] | None = None,
             keepdims: bool = False) -> numpy.ndarray:
    """``a.sum(axis, keepdims)``, accumulated (and returned) in float32 for a float16 ``a``."""
    if a.dtype == _F16:
        return a.sum(axis=axis, keepdims=keepdims, dtype=numpy.float32)
    return a.sum(axis=axis, keepdims=keepdims)


def widen(a: numpy.ndarray) -> numpy.ndarray:
    """``a`` as float32 if it is float16 (for products and dots), else ``a`` itself."""
    return a.astype(numpy.float32) if a.dtype == _F16 else a
