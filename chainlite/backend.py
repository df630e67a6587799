"""Devices and array modules. Only NumPy (the CPU) exists today; the seams are here so a
CuPy backend can arrive later without touching the ops, which ask ``get_array_module``."""
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
    """Chainer's CuPy device: without CuPy no device is one, and creating one raises.

    ``isinstance(device, GpuDevice)`` is False for every chainlite device, so code that
    branches on the device type takes its CPU path.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        from chainlite.backends import cuda
        cuda.check_cuda_available()

    @staticmethod
    def from_device_id(device_id: int) -> 'GpuDevice':
        """Raises RuntimeError: CUDA is not available."""
        return GpuDevice(device_id)

    @staticmethod
    def from_array(array: Any) -> None:
        """Returns None: no array lives on a GPU."""
        return None


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
            ``N >= 0`` or the string ``'N'`` name a GPU, which needs CuPy.

    Returns:
        The :class:`Device`.

    Raises:
        RuntimeError: For a GPU specifier (CUDA is not available).
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
        if device_spec.startswith(('@cupy:', 'cuda')):
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
    from chainlite.backends import cuda
    cuda.check_cuda_available()
    raise RuntimeError('get_device: GPU %d is not available' % number)


def get_device_from_array(*arrays: Any) -> Device:
    """Returns the device holding the arrays (the CPU for NumPy arrays and anything else)."""
    return _CPU


def get_array_module(*args: Any) -> Any:
    """Returns the array module for the arguments (``numpy``; CuPy when it is supported).

    Args:
        *args: Arrays, Variables or other values.

    Returns:
        The ``numpy`` module.
    """
    return numpy


def copyto(dst: numpy.ndarray, src: Any) -> None:
    """Copies ``src`` into ``dst`` in place (across devices when there are several)."""
    numpy.copyto(dst, numpy.asarray(src))


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
