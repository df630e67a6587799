"""Packing many parameter arrays into one flat buffer, so one MPI call moves them all.

GPU arrays (CuPy's) are packed on their device into one device buffer, which then crosses to
the host and back in one copy each way (:func:`pack_to_host`, :func:`unpack_from_host`):
MPI moves host memory.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import numpy

from chainlite.backends import cuda

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
            param.grad = numpy.zeros_like(param.array)  # on the array's device
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
    """Flat buffers by dtype (and GPU), grown as needed and reused between calls."""

    def __init__(self) -> None:
        self._arrays: dict = {}

    def get(self, dtype: DTypeSpec, n: int, device: Any = None) -> Any:
        """A flat buffer of ``n`` elements of ``dtype`` (its contents are undefined).

        Args:
            dtype: The elements' dtype.
            n: The number of elements.
            device: None for host memory (a NumPy array), or a ``cupy.cuda.Device`` for a
                CuPy array on that GPU.
        """
        dtype = numpy.dtype(dtype)
        key = dtype if device is None else (dtype, device.id)
        a = self._arrays.get(key)
        if a is None or a.size < n:
            if device is None:
                a = numpy.empty(n, dtype)
            else:
                with device:
                    a = cuda.cupy.empty(n, dtype)
            self._arrays[key] = a
        return a[:n]


def device_of(arrays: Any, caller: str = 'communicator') -> Optional[Any]:
    """The GPU that holds ``arrays``: None when they are all NumPy arrays.

    Args:
        arrays: Arrays (NumPy or CuPy).
        caller: Names the call in an error.

    Returns:
        None, or the ``cupy.cuda.Device`` of every array.

    Raises:
        TypeError: If NumPy and CuPy arrays are mixed, or the CuPy arrays are on several
            GPUs (one call moves the arrays of one device).
    """
    if not cuda._gpu_types:
        return None   # CuPy is not in use: no array can be on a GPU
    device = None
    n_gpu = 0
    for a in arrays:
        if cuda.is_gpu_array(a):
            n_gpu += 1
            if device is None:
                device = a.device
            elif a.device.id != device.id:
                raise TypeError('%s: the arrays are on several GPUs (%s and %s); move them to '
                                'one device first' % (caller, device, a.device))
    if n_gpu and n_gpu != len(arrays):
        raise TypeError('%s: NumPy and CuPy arrays are mixed; move them to one device first '
                        '(e.g. model.to_device(...))' % caller)
    return device


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


def pack_to_host(arrays: list, host: numpy.ndarray, scratch: Buffers, device: Any) -> Any:
    """Packs GPU ``arrays`` into ``host`` through one device buffer (one device-to-host copy).

    Args:
        arrays: CuPy arrays, all on ``device``.
        host: The flat host buffer (its dtype is the packed one).
        scratch: Where the device buffer is kept between calls.
        device: The arrays' ``cupy.cuda.Device``.

    Returns:
        The device buffer, holding the packed arrays (for :func:`unpack_from_host`).
    """
    with device:
        dev = scratch.get(host.dtype, host.size, device)
        pack(arrays, dev)
        dev.get(out=host)
    return dev


def unpack_from_host(host: numpy.ndarray, arrays: list, scratch: Buffers, device: Any,
                     scale: float = 1.0) -> None:
    """Copies ``host`` (times ``scale``) back into GPU ``arrays`` in place, through one device
    buffer (one host-to-device copy); each array keeps its dtype.

    Args:
        host: The flat host buffer.
        arrays: CuPy arrays, all on ``device``.
        scratch: Where the device buffer is kept between calls.
        device: The arrays' ``cupy.cuda.Device``.
        scale: A factor applied while unpacking.
    """
    with device:
        dev = scratch.get(host.dtype, host.size, device)
        dev.set(host)
        unpack(dev, arrays, scale)
