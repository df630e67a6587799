"""ChainerMN's ``_memory_utility``: packing parameters into one buffer.

ChainerMN packs every gradient into one buffer so that one collective moves them all. Its
buffers (:class:`DeviceMemory` on a GPU, :class:`HostPinnedMemory` on the host) and its
table of GPU parameters (:class:`ParamsData`) need CuPy and a GPU, and raise RuntimeError
without them, as in ChainerMN; the functions that choose and pack the parameters work with
any buffer object that has ChainerMN's ``from_device`` and ``to_device`` methods.
chainlite's own communicators pack with
:mod:`chainlite.distributed.communicators._packing`.

Example:
    >>> import numpy as np, chainlite.links as L
    >>> from chainlite.distributed.communicators import _memory_utility
    >>> params = _memory_utility.extract_params_set_data(L.Linear(3, 2))
    >>> [p.name for p in params], _memory_utility.count_grad_elements(params, True)
    (['W', 'b'], 8)
"""
from __future__ import annotations

import ctypes
from typing import Any, Optional

import numpy

from chainlite import backend
from chainlite.backends import cuda


def __getattr__(name: str) -> Any:
    if name == 'cp':
        # CuPy, as ChainerMN imports it here; None where no GPU can be used.
        return cuda.cupy if cuda.available else None
    raise AttributeError('module %r has no attribute %r' % (__name__, name))


def _no_cupy(what: str) -> RuntimeError:
    return RuntimeError('%s cannot be used: Cupy is not available.' % what)


def _gpu_array(what: str, array: Any) -> Any:
    if not cuda.is_gpu_array(array):
        raise ValueError('%s is from an unsupported array module' % type(array))
    return array


def _bytes_of(array: Any) -> Any:
    # A contiguous array's memory as a flat uint8 view (of the same memory).
    if not array.flags.c_contiguous:
        raise ValueError('a contiguous array is needed, got strides %s' % (array.strides,))
    return array.reshape(-1).view(numpy.uint8)


class ParamsData:
    """ChainerMN's table of the parameters' GPU arrays, for its batched packing kernel.

    With ``zero_fill``, a missing gradient is set to zeros first (as ChainerMN does).

    Args:
        params: The parameters (their arrays on a GPU).
        attr_name: ``'data'`` or ``'grad'``.
        zero_fill: Whether a missing gradient becomes zeros.

    Attributes:
        n_params: The number of parameters.
        n_elems: Their elements in all.
        size_csum: The cumulative sizes (``n_params + 1`` int32 on the GPU).
        dtype: NCCL's type ids of the arrays (int32 on the GPU).
        dptr: The arrays' device pointers (int64 on the GPU).

    Raises:
        ValueError: For a NumPy array (the kernel needs GPU memory), or a dtype other than
            float16, float32 or float64.
        RuntimeError: Where no GPU can be used (CuPy is not available), or CuPy has no NCCL
            (the table holds NCCL's type ids).
    """

    def __init__(self, params: list, attr_name: str, zero_fill: bool) -> None:
        from chainlite.distributed import nccl
        from chainlite.distributed.communicators import pure_nccl_communicator
        n = len(params)
        dptr = numpy.empty(n, numpy.int64)
        dtypes = numpy.empty(n, numpy.int32)
        csum = numpy.zeros(n + 1, numpy.int32)
        for i, param in enumerate(params):
            v = getattr(param, attr_name)
            if attr_name == 'grad' and v is None and zero_fill:
                v = numpy.zeros_like(param.array)
                setattr(param, attr_name, v)
            _gpu_array('ParamsData', v)
            if v.dtype not in (numpy.float16, numpy.float32, numpy.float64):
                raise ValueError('dtype must be float16, float32 or float64.')
            dptr[i] = v.data.ptr
            dtypes[i] = getattr(nccl._module('ParamsData'),
                                pure_nccl_communicator._NCCL_TYPES[v.dtype.name])
            csum[i + 1] = csum[i] + v.size
        if not cuda.available:
            raise _no_cupy('ParamsData')
        cupy = cuda.cupy
        self.n_params = n
        self.n_elems = int(csum[n])
        self.size_csum = cupy.asarray(csum)
        self.dtype = cupy.asarray(dtypes)
        self.dptr = cupy.asarray(dptr)


class HostPinnedMemory:
    """ChainerMN's page-locked host buffer, allocated by CuPy (grown, never shrunk).

    Raises:
        RuntimeError: Where no GPU can be used (CuPy is not available).
    """

    def __init__(self) -> None:
        if not cuda.available:
            raise _no_cupy('HostPinnedMemory')
        self.size = 0
        self.memory: Any = None

    def assign(self, size: int) -> None:
        """Makes the buffer at least ``size`` bytes long (its contents are then undefined)."""
        if size > self.size:
            alloc = getattr(cuda.cupy.cuda, 'alloc_pinned_memory', None)
            # The CuPy stand-in has no pinned memory: plain host memory there.
            self.memory = numpy.empty(size, numpy.uint8) if alloc is None else alloc(size)
            self.size = size

    def _address(self) -> int:
        if isinstance(self.memory, numpy.ndarray):
            return int(self.memory.ctypes.data)
        return int(self.memory.ptr)

    def ptr(self, offset: int = 0) -> ctypes.c_void_p:
        """The address of byte ``offset``."""
        return ctypes.c_void_p(self._address() + offset)

    def buffer(self, size: int) -> Any:
        """The first ``size`` bytes, as a ctypes array (what MPI takes as a buffer)."""
        return ctypes.cast(self._address(), ctypes.POINTER(ctypes.c_ubyte * size)).contents

    def array(self, count: int, offset: int = 0, dtype: Any = numpy.float32) -> numpy.ndarray:
        """``count`` elements of ``dtype`` from byte ``offset``, as a NumPy view."""
        if dtype is None:
            raise TypeError('dtype must be an instance of numpy.dtype class')
        return numpy.frombuffer(self.buffer(self.size), count=count, offset=offset,
                                dtype=dtype)


class DeviceMemory:
    """ChainerMN's GPU buffer, on the current device (grown, never shrunk).

    Raises:
        RuntimeError: Where no GPU can be used (CuPy is not available).
    """

    def __init__(self) -> None:
        if not cuda.available:
            raise _no_cupy('DeviceMemory')
        self.size = 0
        self.memory: Any = None

    def assign(self, size: int) -> None:
        """Makes the buffer at least ``size`` bytes long (its contents are then undefined)."""
        if size > self.size:
            self.memory = cuda.cupy.empty(size, numpy.uint8)
            self.size = size

    def from_device(self, src: Any, size: int, offset: int = 0, stream: Any = None) -> None:
        """Copies the first ``size`` bytes of the GPU array ``src`` to byte ``offset``."""
        data = _gpu_array('DeviceMemory', src)
        if not data.flags.c_contiguous:
            data = cuda.cupy.ascontiguousarray(data)
        self.memory[offset:offset + size] = _bytes_of(data)[:size]

    def to_device(self, dst: Any, size: int, offset: int = 0, stream: Any = None) -> None:
        """Copies ``size`` bytes from byte ``offset`` into the (contiguous) GPU array ``dst``."""
        _bytes_of(_gpu_array('DeviceMemory', dst))[:size] = self.memory[offset:offset + size]

    def ptr(self) -> int:
        """The buffer's device address."""
        return int(self.memory.data.ptr)

    def buffer(self, size: int) -> Any:
        """The first ``size`` bytes at the device address, as a ctypes array (for an MPI
        that reads GPU memory)."""
        return ctypes.cast(self.ptr(), ctypes.POINTER(ctypes.c_ubyte * size)).contents

    def array(self, shape: Any, offset: int = 0, dtype: Any = numpy.float32) -> Any:
        """A GPU view of ``shape`` and ``dtype`` from byte ``offset``."""
        if dtype is None:
            raise TypeError('dtype must be an instance of numpy.dtype class')
        dtype = numpy.dtype(dtype)
        count = int(numpy.prod(shape, dtype=numpy.int64))
        return self.memory[offset:offset + count * dtype.itemsize].view(dtype).reshape(shape)


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
            v = backend.get_array_module(v).empty(v.shape, transfer_dtype)
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
