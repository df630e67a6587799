"""Devices and array modules. Only NumPy (the CPU) exists today; the seams are here so a
CuPy backend can arrive later without touching the ops, which ask ``get_array_module``."""
from __future__ import annotations

from typing import Any

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

    def __exit__(self, *exc) -> None:
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
    supported_array_types = (numpy.ndarray, numpy.generic)

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


def get_device(device_spec: Any) -> Device:
    """Returns the device a specifier names.

    Args:
        device_spec: A :class:`Device`; ``'@numpy'``, ``'native'``, ``'native:0'``, the
            ``numpy`` module, or a negative int (all the CPU); ``'@cupy:N'`` or an int ``N >=
            0`` name a GPU, which needs CuPy.

    Returns:
        The :class:`Device`.

    Raises:
        RuntimeError: For a GPU specifier (CUDA is not available).
        ValueError: For an unknown specifier.
    """
    if isinstance(device_spec, Device):
        return device_spec
    if device_spec is numpy:
        return _CPU
    if isinstance(device_spec, (int, numpy.integer)) and not isinstance(device_spec, bool):
        if device_spec < 0:
            return _CPU
        from chainlite.backends import cuda
        cuda.check_cuda_available()
    if isinstance(device_spec, str):
        if device_spec in ('@numpy', 'native', 'native:0', 'cpu'):
            return _CPU
        if device_spec.startswith(('@cupy', 'cuda')):
            from chainlite.backends import cuda
            cuda.check_cuda_available()
    raise ValueError('invalid device specifier: %r (use \'@numpy\')' % (device_spec,))


def get_device_from_array(*arrays: Any) -> Device:
    """Returns the device holding the arrays (the CPU for NumPy arrays and anything else)."""
    return _CPU


def get_array_module(*args: Any):
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
    """A context manager that makes a device current (nothing to do on the CPU)."""
    return get_device(device_spec)
