"""``chainer.backends._chainerx``: conversions to and from ChainerX, as Chainer without it.

chainlite has no ChainerX (``chainerx.is_available()`` is False under compat), so no array is
a ChainerX array: :func:`from_chx` hands NumPy arrays back unchanged, and everything that
would make a ChainerX array or device raises ``RuntimeError``.

Example:
    >>> import numpy as np
    >>> from chainlite.backends import _chainerx
    >>> a = np.zeros(2)
    >>> _chainerx.from_chx(a) is a
    True
"""
from __future__ import annotations

from typing import Any

import numpy

from chainlite.backend import ChainerxDevice  # noqa: F401


class _ChainerxUnavailableError(RuntimeError, AttributeError):
    """ChainerX is missing: chainlite's RuntimeError, and the AttributeError Chainer raises
    there (its stand-in ``chainerx`` module lacks the names the conversion reads)."""


def _unavailable(what: str) -> _ChainerxUnavailableError:
    return _ChainerxUnavailableError('%s: ChainerX is not available (chainlite computes on '
                                     'NumPy only)' % what)


def _convert_arrays(array: Any, func: Any) -> Any:
    # A list or tuple is converted item by item; an object listed twice is converted once.
    if not isinstance(array, (list, tuple)):
        return func(array)
    done: dict[int, Any] = {}
    out = []
    for a in array:
        if a is not None and id(a) not in done:
            done[id(a)] = func(a)
        out.append(None if a is None else done[id(a)])
    return type(array)(out)


def to_chx(array: Any) -> Any:
    """Converts an array, or a list or tuple of arrays, to ChainerX arrays.

    Args:
        array: An array, None, or a list or tuple of them.

    Returns:
        None for None (and Nones stay in a list); nothing else returns.

    Raises:
        RuntimeError: For any array, as ChainerX is not available.

    Example:
        >>> to_chx(None) is None
        True
    """
    return _convert_arrays(array, _array_to_chainerx)


def from_chx(array: Any) -> Any:
    """Converts ChainerX arrays back to NumPy: the arrays are returned as they are.

    Args:
        array: A NumPy array, None, or a list or tuple of them.

    Returns:
        ``array`` itself (a list or tuple comes back as a new one of the same items).

    Raises:
        TypeError: For an item that is not an array.

    Example:
        >>> import numpy as np
        >>> from_chx([np.ones(1), None])
        [array([1.]), None]
    """
    return _convert_arrays(array, _array_from_chainerx)


def _get_chainerx_device(device_spec: Any) -> Any:
    """Raises RuntimeError: there is no ChainerX device."""
    raise _unavailable('_get_chainerx_device(%r)' % (device_spec,))


def _array_to_chainerx(array: Any, device: Any = None) -> Any:
    """None stays None; any array raises RuntimeError, as ChainerX is not available."""
    if array is None:
        return None
    raise _unavailable('to_chx')


def _array_from_chainerx(array: Any) -> Any:
    """None and NumPy arrays are returned as they are; anything else raises TypeError."""
    if array is None or isinstance(array, numpy.ndarray):
        return array
    raise TypeError('Tried to convert to a non-ChainerX array from an invalid type: %s'
                    % type(array))
