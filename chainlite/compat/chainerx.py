"""The ``chainerx`` module that Chainer scripts see under :mod:`chainlite.compat`.

chainlite has no ChainerX backend. This module has the names scripts test before they use
ChainerX, with the answers of a Chainer built without it: :func:`is_available` is False,
nothing is an instance of :class:`ndarray`, and a CPU device's ``xp`` is ``numpy``, so
``device.xp is chainerx`` is False. Everything that would create ChainerX arrays or devices
raises ``RuntimeError``; any other name raises ``AttributeError`` saying that chainlite does
not implement it.

Example:
    >>> from chainlite.compat import chainerx
    >>> import numpy as np
    >>> chainerx.is_available(), isinstance(np.zeros(2), chainerx.ndarray)
    (False, False)
"""
from __future__ import annotations

from typing import Any


def _unavailable() -> RuntimeError:
    return RuntimeError('ChainerX is not available: chainlite runs on NumPy only')


def is_available() -> bool:
    """Returns False: chainlite has no ChainerX backend.

    Returns:
        False.

    Example:
        >>> is_available()
        False
    """
    return False


class ndarray:
    """Stands in for ``chainerx.ndarray``; no array is an instance of it.

    Raises:
        RuntimeError: On construction, as ChainerX is not available.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise _unavailable()


class Device:
    """Stands in for ``chainerx.Device``; no device is an instance of it.

    Raises:
        RuntimeError: On construction, as ChainerX is not available.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise _unavailable()


class Backend:
    """Stands in for ``chainerx.Backend``; no backend is an instance of it.

    Raises:
        RuntimeError: On construction, as ChainerX is not available.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise _unavailable()


def get_device(*args: Any, **kwargs: Any) -> Device:
    """Raises RuntimeError: ChainerX is not available.

    Args:
        *args: Ignored.
        **kwargs: Ignored.

    Returns:
        Never returns.
    """
    raise _unavailable()


def get_default_device() -> Device:
    """Raises RuntimeError: ChainerX is not available.

    Returns:
        Never returns.
    """
    raise _unavailable()


def using_device(*args: Any, **kwargs: Any) -> Any:
    """Raises RuntimeError: ChainerX is not available.

    Args:
        *args: Ignored.
        **kwargs: Ignored.

    Returns:
        Never returns.
    """
    raise _unavailable()


def __getattr__(name: str) -> Any:
    if name.startswith('__') and name.endswith('__'):
        raise AttributeError('module %r has no attribute %r' % (__name__, name))
    raise AttributeError('chainerx.%s is not implemented by chainlite (ChainerX is not '
                         'available; chainerx.is_available() is False)' % name)
