"""Devices and array modules: NumPy on the CPU, CuPy on NVIDIA GPUs (``'@cupy:N'``).

The ops ask :func:`get_array_module` for the module of their inputs, so one implementation
serves both; CuPy is imported only when a GPU is asked for or a CuPy array arrives.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy


class Device:
    """Base class of devices: where arrays live and which array module computes on them."""

    xp: Any = None
    name = ''
    supported_array_types: tuple = ()

    def use(self) -> None:
        """Makes this device the current one (nothing to do on the CPU)."""

    def send(self, arrays: Any) -> Any:
        """Transfers an array, or a nested tuple/list/dict of arrays, to this device."""
        if isinstance(arrays, (list, tuple)):
            return type(arrays)(self.send(a) for a in arrays)
        if isinstance(arrays, dict):
            return {k: self.send(v) for k, v in arrays.items()}
        if arrays is None:
            return None
        return self.send_array(arrays)

    def send_array(self, array: Any) -> Any:
        """Transfers one array to this device."""
        raise NotImplementedError

    def is_array_supported(self, array: Any) -> bool:
        """Whether ``array`` lives on this device."""
        return isinstance(array, self.supported_array_types)

    def __enter__(self) -> 'Device':
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def __str__(self) -> str:
        return self.name


class CpuDevice(Device):
    """The CPU with NumPy arrays (Chainer's ``@numpy`` device).

    Example:
        >>> import chainlite
        >>> dev = chainlite.get_device('@numpy')
        >>> str(dev), dev.xp.__name__
        ('@numpy', 'numpy')
    """

    xp = numpy
    name = '@numpy'
    supported_array_types = (numpy.ndarray,)

    @staticmethod
    def from_array(array: Any) -> Optional['CpuDevice']:
        """The CPU device if ``array`` is a NumPy array, else None (as in Chainer)."""
        if isinstance(array, numpy.ndarray):
            return _CPU
        return None

    def send_array(self, array: Any) -> numpy.ndarray:
        if isinstance(array, numpy.ndarray):
            return array
        if hasattr(array, 'get'):  # a CuPy array, should one be passed in
            return array.get()
        return numpy.asarray(array)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CpuDevice)

    def __hash__(self) -> int:
        return hash(CpuDevice)

    def __repr__(self) -> str:
        return '<CpuDevice (numpy)>'


_CPU = CpuDevice()


class GpuDevice(Device):
    """A CUDA GPU with CuPy arrays (Chainer's ``'@cupy:N'`` device).

    Args:
        device: The ``cupy.cuda.Device`` (or its integer id).

    Raises:
        RuntimeError: No GPU can be used (the message says whether CuPy, a driver or a device
            is missing).
    """

    def __init__(self, device: Any) -> None:
        from chainlite.backends import cuda
        cp = cuda._cupy()
        if not hasattr(device, 'id'):
            device = cp.cuda.Device(int(device))
        self.device = device
        self.xp = cp
        self.supported_array_types = (cp.ndarray,)
        self.name = '@cupy:%d' % device.id

    @staticmethod
    def from_device_id(device_id: int) -> 'GpuDevice':
        """The GPU of an integer id."""
        return GpuDevice(device_id)

    @staticmethod
    def from_array(array: Any) -> Optional['GpuDevice']:
        """The GPU holding ``array`` if it is a CuPy array, else None."""
        from chainlite.backends import cuda
        if cuda.is_gpu_array(array):
            return GpuDevice(array.device)
        return None

    def use(self) -> None:
        """Makes this GPU the current one."""
        self.device.use()

    def send_array(self, array: Any) -> Any:
        from chainlite.backends import cuda
        return cuda._array_to_gpu(array, self.device, None)

    def is_array_supported(self, array: Any) -> bool:
        from chainlite.backends import cuda
        return cuda.is_gpu_array(array) and array.device.id == self.device.id

    def __enter__(self) -> 'GpuDevice':
        self._entered = self.device.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.device.__exit__(*exc)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GpuDevice) and other.device.id == self.device.id

    def __hash__(self) -> int:
        return hash((GpuDevice, self.device.id))

    def __repr__(self) -> str:
        return '<GpuDevice (cupy):%d>' % self.device.id

    def __reduce__(self) -> tuple:
        # A copy (copy.deepcopy of a GPU model, pickle) names the same GPU: the instance holds
        # the CuPy module, which cannot be copied.
        return GpuDevice, (self.device.id,)


class ChainerxDevice(Device):
    """Chainer's ChainerX device: ChainerX is not available, and creating one raises."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError('ChainerX is not available: chainlite computes on NumPy only')

    @staticmethod
    def from_array(array: Any) -> None:
        """Returns None: no array is a ChainerX array."""
        return None

    @staticmethod
    def from_fallback_device(device: Device) -> 'ChainerxDevice':
        """Raises RuntimeError: ChainerX is not available."""
        return ChainerxDevice(device)


class Intel64Device(Device):
    """Chainer's iDeep device: iDeep is not available, and creating one raises.

    The name ``'@intel64'`` given to :func:`get_device` still means the CPU device.
    """

    xp = numpy
    name = '@intel64'

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError('iDeep is not available: chainlite computes on NumPy only '
                           "(use the CPU device, '@numpy')")

    @staticmethod
    def from_array(array: Any) -> None:
        """Returns None: no array is an iDeep array."""
        return None


class _UnknownDeviceError(ValueError, RuntimeError):
    """An unknown device name: chainlite's ValueError, and Chainer's RuntimeError for it."""


def get_device(device_spec: Any) -> Device:
    """Returns the device a specifier names.

    Args:
        device_spec: A :class:`Device`; ``'@numpy'``, ``'native'``, ``'native:0'``, the
            ``numpy`` module, a negative int or an integer string such as ``'-1'`` (all the
            CPU, as the ``--device -1`` of Chainer's scripts gives); ``'@cupy:N'``, an int
            ``N >= 0``, the string ``'N'`` or the ``cupy`` module name a GPU (CuPy).

    Returns:
        The :class:`Device`.

    Raises:
        RuntimeError: For a GPU specifier where no GPU can be used (the message says what
            is missing).
        ValueError: For an unknown string specifier.
        TypeError: For a specifier that is neither a device, an integer nor a string.

    Example:
        >>> import chainlite
        >>> chainlite.get_device('-1') == chainlite.get_device('@numpy')
        True
    """
    if isinstance(device_spec, Device):
        return device_spec
    if device_spec is numpy:
        return _CPU
    if getattr(device_spec, '__name__', None) == 'cupy':
        return GpuDevice(device_spec.cuda.get_device_id())
    if hasattr(device_spec, 'id') and hasattr(device_spec, 'use') and \
            type(device_spec).__module__.startswith(('cupy', 'chainlite.testing')):
        return GpuDevice(device_spec)  # a cupy.cuda.Device
    if isinstance(device_spec, (int, numpy.integer)) and not isinstance(device_spec, bool):
        return _device_from_int(int(device_spec))
    if isinstance(device_spec, str):
        try:
            number = int(device_spec)
        except ValueError:
            pass
        else:
            return _device_from_int(number)
        if device_spec in ('@numpy', 'native', 'native:0', 'cpu', '@intel64'):
            return _CPU
        if device_spec.startswith('@cupy:'):
            try:
                number = int(device_spec[len('@cupy:'):])
            except ValueError:
                number = -1
            if number < 0:
                raise ValueError('get_device: invalid device specifier %r (a GPU is '
                                 "'@cupy:N' with N >= 0)" % (device_spec,))
            return GpuDevice(number)
        if device_spec.startswith('cuda'):
            from chainlite.backends import cuda
            cuda.check_cuda_available()
        if not device_spec.startswith('@'):
            # Chainer reads a name without '@' as a ChainerX device (a RuntimeError there
            # when ChainerX is missing); the error is both that and chainlite's ValueError.
            raise _UnknownDeviceError(
                'get_device: invalid device specifier %r: a name without \'@\' would be a '
                'ChainerX device, and ChainerX is not available (use \'@numpy\', or an '
                'integer such as -1 for the CPU)' % (device_spec,))
        raise ValueError('get_device: invalid device specifier %r (use \'@numpy\', or an '
                         'integer such as -1 for the CPU)' % (device_spec,))
    raise TypeError('get_device: a device specifier must be a Device, an integer or a string, '
                    'not %s' % type(device_spec).__name__)


def _device_from_int(number: int) -> Device:
    if number < 0:
        return _CPU
    return GpuDevice(number)


def get_device_from_array(*arrays: Any) -> Device:
    """Returns the device holding the first array: its GPU for a CuPy array (or a Variable
    holding one), else the CPU."""
    from chainlite.backends import cuda
    if cuda._gpu_types:
        for a in arrays:
            a = _inner(a)
            if isinstance(a, cuda._gpu_types):
                return GpuDevice(a.device)
    return _CPU


def get_array_module(*args: Any) -> Any:
    """Returns the array module for the arguments: ``cupy`` if any is a CuPy array (or a
    Variable holding one), else ``numpy``.

    Args:
        *args: Arrays, Variables or other values.

    Returns:
        ``numpy`` or ``cupy``.

    Example:
        >>> import numpy, chainlite
        >>> chainlite.backend.get_array_module(numpy.zeros(2)) is numpy
        True
    """
    for a in args:
        if a.__class__ is not numpy.ndarray and a is not None:
            return _array_module_slow(args)
    return numpy


def _array_module_slow(args: tuple) -> Any:
    from chainlite.backends import cuda
    gpu = cuda._gpu_types
    if not gpu:
        if not any(type(_inner(a)).__module__.startswith('cupy') for a in args):
            return numpy
        cuda._load()  # a CuPy array from the user's own code: CuPy is in use
        gpu = cuda._gpu_types
        if not gpu:
            return numpy
    for a in args:
        if isinstance(_inner(a), gpu):
            return cuda.cupy
    return numpy


def _inner(a: Any) -> Any:
    # A Variable's array (without importing the Variable class here).
    inner = getattr(a, '_data', None) if not isinstance(a, numpy.ndarray) else None
    return a if inner is None else inner


def copyto(dst: Any, src: Any) -> None:
    """Copies ``src`` into ``dst`` in place, across devices (CPU and GPU) where needed.

    Args:
        dst: The NumPy or CuPy array written to.
        src: An array (NumPy or CuPy) or a scalar, broadcast to ``dst``'s shape.
    """
    from chainlite.backends import cuda
    if isinstance(dst, numpy.ndarray):
        numpy.copyto(dst, cuda.to_cpu(src) if cuda.is_gpu_array(src) else numpy.asarray(src))
        return
    if cuda.is_gpu_array(dst):
        if isinstance(src, numpy.ndarray):
            src = cuda._array_to_gpu(src, dst.device, None)
        elif cuda.is_gpu_array(src) and src.device.id != dst.device.id:
            src = cuda._array_to_gpu(src, dst.device, None)
        with dst.device:
            cuda._cupy().copyto(dst, src)
        return
    raise TypeError('copyto: the destination must be a NumPy or CuPy array, not %s'
                    % type(dst).__name__)


def using_device(device_spec: Any) -> Device:
    """A context manager that makes a device current (nothing to do on the CPU).

    Args:
        device_spec: Any specifier :func:`get_device` accepts.

    Returns:
        The device, usable in a ``with`` statement.

    Example:
        >>> import chainlite
        >>> with chainlite.using_device('@numpy'):
        ...     pass
    """
    return get_device(device_spec)


def to_chx(array: Any) -> Any:
    """Converts arrays to ChainerX: see :func:`chainlite.backends._chainerx.to_chx`.

    Args:
        array: An array, None, or a list or tuple of them.

    Returns:
        None for None; any array raises RuntimeError (ChainerX is not available).
    """
    from chainlite.backends import _chainerx
    return _chainerx.to_chx(array)
