"""Objects that live on a device and move between devices: Chainer's ``DeviceResident``.

A :class:`DeviceResident` tells a visitor (a :class:`DeviceResidentsVisitor`) which arrays and
Variables it holds through :meth:`~DeviceResident.device_resident_accept`; moving to a device
is one such visit. :class:`chainlite.Link` is a DeviceResident whose accept visits its
parameters, persistent arrays and child links. The devices are the CPU (NumPy) and CuPy's
GPUs; ``to_intel64`` and ``to_chx`` raise as in a Chainer without iDeep or ChainerX.
"""
from __future__ import annotations

import abc
import warnings
from typing import Any

import numpy

from chainlite import backend


class DeviceResident:
    """Base class of objects that hold arrays on a device (links, samplers, ...).

    A subclass holding arrays outside parameters overrides :meth:`device_resident_accept`,
    calls ``super().device_resident_accept(visitor)``, then hands each array to
    ``visitor.visit_array`` and keeps what it returns.

    Example:
        >>> import numpy as np
        >>> from chainlite import device_resident
        >>> class Table(device_resident.DeviceResident):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.table = np.arange(3.0)
        ...     def device_resident_accept(self, visitor):
        ...         super().device_resident_accept(visitor)
        ...         self.table = visitor.visit_array(self.table)
        >>> t = Table().to_device('@numpy')
        >>> str(t.device), t.xp.__name__
        ('@numpy', 'numpy')
    """

    _device: backend.Device = backend.CpuDevice()

    def __init__(self) -> None:
        pass

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        """Applies ``visitor`` to this object and to the device objects it holds.

        Args:
            visitor: The visitor; this base calls its ``visit_device_resident(self)``.
        """
        visitor.visit_device_resident(self)

    @property
    def device(self) -> backend.Device:
        """The :class:`~chainlite.backend.Device` holding this object's arrays."""
        return self._device

    @property
    def xp(self) -> Any:
        """The array module of :attr:`device` (``numpy``, or ``cupy`` on a GPU)."""
        return self.device.xp

    def to_cpu(self) -> Any:
        """Deprecated as in Chainer 7 (warns): ``to_device('@numpy')``.

        Returns:
            This object.
        """
        warnings.warn("to_cpu is deprecated. Please use to_device('@numpy') instead.",
                      DeprecationWarning, stacklevel=2)
        self.device_resident_accept(_ToDeviceVisitor(backend.CpuDevice()))
        return self

    def to_gpu(self, device: Any = None) -> Any:
        """Deprecated as in Chainer 7 (warns): ``to_device('@cupy:N')``, except that arrays
        already on a GPU stay where they are (with a RuntimeWarning if that is another GPU).

        Args:
            device: The GPU's id or ``cupy.cuda.Device``; None for the current one.

        Returns:
            This object.

        Raises:
            RuntimeError: No GPU can be used (the message says what is missing).
        """
        from chainlite.backends import cuda
        cuda.check_cuda_available()
        warnings.warn("to_gpu is deprecated. Please use to_device('@cupy:N') instead.",
                      DeprecationWarning, stacklevel=2)
        dev = backend.GpuDevice(cuda._get_device_or_current(device))
        self.device_resident_accept(_ToDeviceVisitor(dev, keep_gpu=True))
        return self

    def to_intel64(self) -> Any:
        """Deprecated (warns); raises RuntimeError, as iDeep is not available.

        Returns:
            Never returns.
        """
        warnings.warn("to_intel64 is deprecated. Please use to_device('@intel64') instead.",
                      DeprecationWarning, stacklevel=2)
        from chainlite.backends import intel64
        intel64.check_ideep_available()
        return self  # pragma: no cover

    def to_chx(self) -> Any:
        """Raises RuntimeError: ChainerX is not available (Chainer's message).

        Returns:
            Never returns.
        """
        raise RuntimeError('ChainerX is not available.')

    def from_chx(self) -> Any:
        """Moves ChainerX arrays back to NumPy: nothing is a ChainerX array, so no array moves.

        Returns:
            This object.
        """
        self.device_resident_accept(_FromChxVisitor())
        return self

    def to_device(self, device: Any) -> Any:
        """Sends the arrays and Variables of this object (and what it holds) to ``device``.

        Args:
            device: Any specifier :func:`chainlite.get_device` accepts.

        Returns:
            This object.
        """
        self.device_resident_accept(_ToDeviceVisitor(backend.get_device(device)))
        return self


class DeviceResidentsVisitor(abc.ABC):
    """Base class of the visitors that :meth:`DeviceResident.device_resident_accept` takes.

    A subclass implements the three ``visit_*`` methods (abstract here).
    """

    @abc.abstractmethod
    def visit_device_resident(self, device_resident: DeviceResident) -> None:
        """Processes a :class:`DeviceResident`.

        Args:
            device_resident: The object visited.
        """

    @abc.abstractmethod
    def visit_array(self, arr: Any) -> Any:
        """Processes an array and returns the array to keep (``arr`` itself if unchanged).

        Args:
            arr: The array visited.

        Returns:
            The array that replaces ``arr``.
        """

    @abc.abstractmethod
    def visit_variable(self, param: Any) -> None:
        """Processes a :class:`~chainlite.Variable` or :class:`~chainlite.Parameter`.

        Args:
            param: The Variable visited.
        """



class _ToDeviceVisitor(DeviceResidentsVisitor):
    """Moves every visited object, array and Variable to one device.

    With ``keep_gpu`` (``to_gpu``'s rule in Chainer), what is already on a GPU stays there.
    """

    def __init__(self, device: backend.Device, keep_gpu: bool = False) -> None:
        self._device = device
        self._keep_gpu = keep_gpu and isinstance(device, backend.GpuDevice)
        self._gpu = device if isinstance(device, backend.GpuDevice) else None

    def visit_device_resident(self, device_resident: DeviceResident) -> None:
        device_resident._device = self._device

    def visit_array(self, arr: Any) -> Any:
        if self._keep_gpu and self._stays(backend.get_device_from_array(arr)):
            return arr
        return self._device.send(arr)

    def visit_variable(self, param: Any) -> None:
        if self._keep_gpu and self._stays(param.device):
            return
        param.to_device(self._device)

    def _stays(self, current: backend.Device) -> bool:
        if not isinstance(current, backend.GpuDevice):
            return False
        if self._gpu is not None and current != self._gpu:
            warnings.warn(
                'to_gpu(%d) leaves the arrays already on GPU %d where they are (as Chainer\'s '
                'to_gpu does); use to_device(%r) to move them between GPUs'
                % (self._gpu.device.id, current.device.id, str(self._gpu)),
                RuntimeWarning, stacklevel=4)
        return True


class _FromChxVisitor(DeviceResidentsVisitor):
    """Chainer's from_chx visit: without ChainerX every array already is NumPy."""

    def visit_device_resident(self, device_resident: DeviceResident) -> None:
        pass

    def visit_array(self, arr: Any) -> Any:
        if not isinstance(arr, numpy.ndarray):
            raise TypeError('from_chx: expected a NumPy array, got %s' % type(arr).__name__)
        return arr

    def visit_variable(self, param: Any) -> None:
        pass
