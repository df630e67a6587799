"""ChainerMN's ``_memory_utility``: packing parameters into one buffer, as ChainerMN on CPUs.

ChainerMN packs every gradient into one buffer so that one collective moves them all. Its
buffers live on GPUs (:class:`DeviceMemory`, :class:`HostPinnedMemory`, :class:`ParamsData`
need CuPy, so here they raise as ChainerMN does without it); the functions that choose and
pack the parameters work with any buffer object that has ChainerMN's ``from_device`` and
``to_device`` methods. chainlite's own communicators pack with
:mod:`chainlite.distributed.communicators._packing`.

Example:
    >>> import numpy as np, chainlite.links as L
    >>> from chainlite.distributed.communicators import _memory_utility
    >>> params = _memory_utility.extract_params_set_data(L.Linear(3, 2))
    >>> [p.name for p in params], _memory_utility.count_grad_elements(params, True)
    (['W', 'b'], 8)
"""
from __future__ import annotations

from typing import Any, Optional

import numpy

#: CuPy, which ChainerMN imports here when it is installed: chainlite has no GPU backend.
cp = None


def _no_cupy(what: str) -> RuntimeError:
    return RuntimeError('%s cannot be used: Cupy is not available.' % what)


class ParamsData:
    """ChainerMN's table of GPU pointers to parameter arrays, for its batched packing kernel.

    With ``zero_fill``, a missing gradient is set to zeros first (as ChainerMN does); then
    the NumPy arrays are refused, as ChainerMN refuses them without CuPy.

    Args:
        params: The parameters.
        attr_name: ``'data'`` or ``'grad'``.
        zero_fill: Whether a missing gradient becomes zeros.

    Raises:
        ValueError: For a NumPy array (the kernel needs GPU memory).
        RuntimeError: For an empty list (CuPy is not available).
    """

    def __init__(self, params: list, attr_name: str, zero_fill: bool) -> None:
        for param in params:
            v = getattr(param, attr_name)
            if attr_name == 'grad' and v is None and zero_fill:
                v = numpy.zeros_like(param.array)
                setattr(param, attr_name, v)
            raise ValueError('%s is from an unsupported array module' % type(v))
        raise _no_cupy('ParamsData')


class HostPinnedMemory:
    """ChainerMN's page-locked host buffer (allocated by CuPy): raises RuntimeError here."""

    def __init__(self) -> None:
        raise _no_cupy('HostPinnedMemory')


class DeviceMemory:
    """ChainerMN's GPU buffer: raises RuntimeError, as CuPy is not available."""

    def __init__(self) -> None:
        raise _no_cupy('DeviceMemory')


def extract_params_set_data(model: Any) -> list:
    """Returns the initialized parameters of ``model``, sorted by their paths.

    Args:
        model: A :class:`~chainlite.Link`.

    Returns:
        The parameters whose array is set.
    """
    return [param for _, param in sorted(model.namedparams(), key=lambda item: item[0])
            if param.array is not None]


def extract_params_set_grad(model: Any, zero_fill: bool) -> list:
    """Returns the parameters of ``model`` whose gradients are communicated, sorted by path.

    Args:
        model: A :class:`~chainlite.Link`.
        zero_fill: Whether parameters without a gradient count too (they will be sent as
            zeros); otherwise only those with a gradient.

    Returns:
        The initialized parameters (with a gradient unless ``zero_fill``).
    """
    params = extract_params_set_data(model)
    if zero_fill:
        return params
    return [param for param in params if param.grad is not None]


def count_grad_elements(params: list, zero_fill: bool) -> int:
    """Returns the number of gradient elements of ``params`` (their arrays' with ``zero_fill``).

    Args:
        params: The parameters.
        zero_fill: Whether to count each parameter's array (a missing gradient will be zeros).

    Returns:
        The total number of elements.
    """
    if zero_fill:
        return sum(param.array.size for param in params)
    return sum(param.grad.size for param in params)


def pack_params(params: list, attr_name: str, buffer: Any, transfer_dtype: Any,
                zero_fill: bool, stream: Any = None) -> None:
    """Copies the arrays (or gradients) of ``params``, cast to ``transfer_dtype``, into
    ``buffer`` one after the other.

    Args:
        params: The parameters.
        attr_name: ``'data'`` or ``'grad'``.
        buffer: An object with ``from_device(array, n_bytes, offset, stream)``.
        transfer_dtype: The dtype in the buffer.
        zero_fill: Whether a missing gradient is packed as zeros.
        stream: Passed on to the buffer.
    """
    offset = 0
    itemsize = numpy.dtype(transfer_dtype).itemsize
    for param in params:
        v = getattr(param, attr_name)
        if attr_name == 'grad' and v is None and zero_fill:
            v = numpy.zeros_like(param.array)
        size = v.size * itemsize
        if v.dtype != transfer_dtype:
            v = v.astype(transfer_dtype)
        buffer.from_device(v, size, offset, stream)
        offset += size


def unpack_params(params: list, attr_name: str, buffer: Any, transfer_dtype: Any,
                  zero_fill: bool, stream: Any = None) -> None:
    """Copies ``buffer`` back into the arrays (or gradients) of ``params``, cast to their
    dtypes: the inverse of :func:`pack_params`.

    Args:
        params: The parameters.
        attr_name: ``'data'`` or ``'grad'``.
        buffer: An object with ``to_device(array, n_bytes, offset, stream)`` that fills
            ``array``.
        transfer_dtype: The dtype in the buffer.
        zero_fill: Whether a missing gradient is created to receive its part.
        stream: Passed on to the buffer.
    """
    offset = 0
    itemsize = numpy.dtype(transfer_dtype).itemsize
    for param in params:
        v = getattr(param, attr_name)
        if attr_name == 'grad' and v is None and zero_fill:
            v = numpy.empty_like(param.array)
            setattr(param, attr_name, v)
        size = v.size * itemsize
        own_dtype = v.dtype
        if own_dtype != transfer_dtype:
            v = numpy.empty(v.shape, transfer_dtype)
        buffer.to_device(v, size, offset, stream)
        offset += size
        if own_dtype != transfer_dtype:
            getattr(param, attr_name)[...] = v.astype(own_dtype)


def array_to_buffer_object(array: Any, mpi_dtype: Optional[Any] = None) -> Any:
    """Returns what mpi4py takes as a buffer for ``array``: the contiguous NumPy array.

    Args:
        array: A NumPy array.
        mpi_dtype: The MPI datatype ChainerMN pairs with GPU memory (``MPI.FLOAT`` when
            None); a NumPy array carries its own.

    Returns:
        ``array``, made C-contiguous.

    Raises:
        ValueError: For what is not a NumPy array.
    """
    return get_device_memory_pointer(array)


def get_device_memory_pointer(array: Any) -> numpy.ndarray:
    """Returns ``array`` as a C-contiguous NumPy array (what MPI reads for a CPU array).

    Args:
        array: A NumPy array.

    Returns:
        ``array`` itself if contiguous, else a contiguous copy.

    Raises:
        ValueError: For what is not a NumPy array (GPU memory needs CuPy).
    """
    if not isinstance(array, numpy.ndarray):
        raise ValueError('%s is from an unsupported array module' % type(array))
    return numpy.ascontiguousarray(array)
