"""Copy an array onto a device."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.backends import cuda

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.backend import Device
    from chainlite.types import VariableOrArray
    from chainlite.types import DeviceSpec


class Copy(function_node.FunctionNode):

    def __init__(self, out_device: Device) -> None:
        self.out_device = out_device

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self._in_device = backend.get_device_from_array(x)
        y = self.out_device.send(x)
        if y is x:
            # send() hands back x itself when it is already there: copy, as the name
            # promises, on that device (CuPy's copy() allocates on the current one).
            with self.out_device:
                y = x.copy()
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, = grad_outputs
        return Copy(self._in_device).apply((gy,))


def copy(x: VariableOrArray, dst: DeviceSpec) -> Variable:
    """Copies ``x`` onto the device ``dst``; the gradient is copied back to ``x``'s device.

    Host to host, host to GPU, GPU to host and GPU to GPU (CuPy). The result is always a new
    array with ``x``'s values, never a view, even where ``x`` is already on ``dst``.

    Args:
        x: A Variable or array (NumPy or CuPy).
        dst: A device specifier (see :func:`chainlite.get_device`): ``-1``, ``'@numpy'`` or a
            :class:`~chainlite.backend.CpuDevice` for the CPU; ``N >= 0``, ``'@cupy:N'`` or
            a :class:`~chainlite.backend.GpuDevice` for GPU ``N``; ``cuda.DummyDevice``
            (the CPU), as in Chainer. A GPU specifier where no GPU can be used raises
            RuntimeError saying what is missing.

    Returns:
        A Variable holding a copy of ``x``'s array on ``dst``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.array([1.0, 2.0])
        >>> y = F.copy(x, -1)
        >>> y.array, y.array is x
        (array([1., 2.]), False)
    """
    if isinstance(dst, cuda.DummyDeviceType):
        dst = -1  # the "no GPU" device of Chainer's cuda module: the CPU, as in Chainer
    return Copy(backend.get_device(dst)).apply((x,))[0]
