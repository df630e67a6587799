"""How one value is turned into a storable array, and how a stored array is loaded back."""
from __future__ import annotations

import math
from typing import Any

import numpy

from chainlite import backend
from chainlite import variable

_CPU = backend.CpuDevice()


def to_storable(key: str, value: Any) -> Any:
    """Returns ``value`` as a NumPy array on the CPU (None stays None).

    Python scalars become 0-d arrays (int64, float64, bool, str) as in Chainer. Values that
    would need pickle (object arrays) are refused: chainlite never unpickles when loading.
    """
    if value is None:
        return None
    if isinstance(value, variable.Variable):
        raise TypeError(
            'cannot serialize %r: it is a %s; pass its array (.array) instead'
            % (key, type(value).__name__))
    array = numpy.asarray(_CPU.send(value))
    if array.dtype.hasobject:
        raise TypeError(
            'cannot serialize %r: a %s becomes an object array, which can only be stored with '
            'pickle, and chainlite never unpickles when loading; store arrays, numbers or '
            'strings (e.g. json.dumps(...)) instead' % (key, type(value).__name__))
    return array


def restore(key: str, source: str, stored: Any, value: Any) -> Any:
    """Loads ``stored`` (an array read from ``source``, or None) as the new ``value``.

    An array ``value`` is filled in place (same shape; dtype castable as ``'same_kind'``); a
    scalar or string ``value`` gives its type to the result (Chainer's rules); a ``value`` of
    None returns ``stored`` itself.
    """
    if stored is None:
        return None
    stored = numpy.asarray(stored)
    if stored.dtype.hasobject:
        if stored.ndim == 0 and stored[()] is None:
            return None
        raise ValueError(
            'cannot load %r from %s: it is an object array, which chainlite never loads '
            '(reading it would run pickle)' % (key, source))
    if value is None:
        return stored
    check_fits(key, source, stored.shape, stored.dtype, value)
    if hasattr(value, 'shape') and not isinstance(value, numpy.generic):
        backend.copyto(value, stored)
        return value
    return type(value)(stored.reshape(()))


def check_fits(key: str, source: str, shape: tuple[int, ...], dtype: numpy.dtype,
               value: Any) -> None:
    """Raises the error :func:`restore` would raise for a stored array of ``shape`` and
    ``dtype``, from the header alone: a reader calls it before it reads (and allocates) the
    data, so a file cannot make chainlite allocate more than the value it loads into.
    """
    if value is None:
        return
    if isinstance(value, variable.Variable):
        raise TypeError(
            'cannot load %r into a %s; pass its array (.array) instead'
            % (key, type(value).__name__))
    if hasattr(value, 'shape') and not isinstance(value, numpy.generic):
        if tuple(shape) != tuple(value.shape):
            raise ValueError(
                'cannot load %r from %s: expected shape %s, but the file holds shape %s'
                % (key, source, tuple(value.shape), tuple(shape)))
        if not numpy.can_cast(dtype, value.dtype, 'same_kind'):
            raise ValueError(
                'cannot load %r from %s: expected dtype %s, but the file holds dtype %s'
                % (key, source, value.dtype, dtype))
        return
    _check_scalar(key, source, tuple(shape), dtype, type(value))


def _check_scalar(key: str, source: str, shape: tuple[int, ...], dtype: numpy.dtype,
                  value_type: type) -> None:
    """Checks that one element of ``dtype`` converts to ``value_type`` without loss."""
    if math.prod(shape) != 1:
        raise ValueError(
            'cannot load %r from %s: expected a %s scalar, but the file holds shape %s'
            % (key, source, value_type.__name__, shape))
    kind = dtype.type
    # An integer array always fits a Python int (unbounded), whatever can_cast says.
    if (issubclass(kind, numpy.number)
            and not (issubclass(kind, numpy.integer) and value_type is int)
            and not numpy.can_cast(dtype, value_type, 'safe')):
        raise TypeError(
            'cannot load %r from %s: the file holds dtype %s, which cannot be converted to %s '
            'without loss' % (key, source, dtype, value_type.__name__))
