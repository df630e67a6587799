"""The device helper of ChainerMN's tests."""
from __future__ import annotations

from typing import Any, Optional

from chainlite import backend


def get_device(device_id: Optional[int] = None, use_chainerx: bool = False) -> Any:
    """Returns the device a ChainerMN test runs on: the CPU when ``device_id`` is None.

    Args:
        device_id: A GPU number, or None for the CPU.
        use_chainerx: Ask for a ChainerX device (``'native:0'`` or ``'cuda:N'``).

    Returns:
        A device: the CPU (``'@numpy'``) or a GPU (``'@cupy:N'``, which needs CuPy and a
        GPU); a ChainerX device raises the error of :func:`chainlite.get_device`.

    Example:
        >>> from chainlite.distributed.testing import get_device
        >>> get_device()
        <CpuDevice (numpy)>
    """
    if device_id is not None:
        name = 'cuda:%d' % device_id if use_chainerx else '@cupy:%d' % device_id
    else:
        name = 'native:0' if use_chainerx else '@numpy'
    return backend.get_device(name)
