"""Packing many parameter arrays into one flat buffer, so one MPI call moves them all."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec


def grad_params(model: Any, zero_fill: bool) -> list:
    """The initialized parameters of ``model`` with a gradient, sorted by name.

    With ``zero_fill``, a parameter that has data but no gradient (unused in this step) gets
    a zero gradient, so every rank packs the same arrays.
    """
    params = []
    for _, param in sorted(model.namedparams()):
        if param.array is None:
            continue
        if param.grad is None:
            if not zero_fill:
                continue
            param.grad = numpy.zeros_like(param.array)
        params.append(param)
    return params


def data_params(model: Any) -> list:
    """The initialized parameters of ``model``, sorted by name."""
    return [p for _, p in sorted(model.namedparams()) if p.array is not None]


def wire_dtype(dtype: DTypeSpec) -> numpy.dtype:
    """The dtype a reduction runs in: float16 sums are taken in float32 (MPI has no half)."""
    dtype = numpy.dtype(dtype)
    return numpy.dtype(numpy.float32) if dtype == numpy.float16 else dtype


class Buffers:
    """Flat buffers by dtype, grown as needed and reused between calls."""

    def __init__(self) -> None:
        self._arrays: dict = {}

    def get(self, dtype: DTypeSpec, n: int) -> numpy.ndarray:
        """A flat buffer of ``n`` elements of ``dtype`` (its contents are undefined)."""
        dtype = numpy.dtype(dtype)
        a = self._arrays.get(dtype)
        if a is None or a.size < n:
            a = self._arrays[dtype] = numpy.empty(n, dtype)
        return a[:n]


def group(arrays: list, dtype_of: Any) -> dict:
    """Indices of ``arrays`` by the buffer dtype ``dtype_of(array.dtype)``, in order."""
    groups: dict = {}
    for i, a in enumerate(arrays):
        groups.setdefault(dtype_of(a.dtype), []).append(i)
    return groups


def pack(arrays: list, buf: numpy.ndarray) -> None:
    """Copies ``arrays`` one after the other into ``buf`` (casting to its dtype)."""
    o = 0
    for a in arrays:
        n = a.size
        buf[o:o + n] = a.reshape(-1)
        o += n


def unpack(buf: numpy.ndarray, arrays: list, scale: float = 1.0) -> None:
    """Copies ``buf`` (times ``scale``) back into ``arrays`` in place, casting to their dtypes.
    """
    o = 0
    for a in arrays:
        n = a.size
        part = buf[o:o + n].reshape(a.shape)
        if scale == 1.0:
            a[...] = part
        else:
            # Scaling while copying back saves a pass over the buffer.
            numpy.multiply(part, scale, out=a, casting='unsafe')
        o += n
