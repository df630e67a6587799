"""Axis arguments, validated the same way by every function that takes one."""
from __future__ import annotations

from typing import Any, Sequence, overload

import numpy

from chainlite.utils import type_check


@overload
def normalize_axes(axis: None, ndim: int, label: str) -> None: ...


@overload
def normalize_axes(axis: int | numpy.integer | Sequence[int], ndim: int,
                   label: str) -> tuple[int, ...]: ...


def normalize_axes(axis: Any, ndim: int, label: str) -> tuple[int, ...] | None:
    """Validates an ``axis`` argument (None, an int or a tuple of ints) for an array of
    ``ndim`` dimensions.

    Returns:
        None for None, else a sorted tuple of non-negative axes.

    Raises:
        TypeError: For a non-integer axis.
        chainlite.utils.type_check.InvalidType: For an axis out of range, naming ``label``.
        ValueError: For a repeated axis.
    """
    if axis is None:
        return None
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    out = []
    for a in axes:
        if not isinstance(a, (int, numpy.integer)) or isinstance(a, bool):
            # NumPy would reject it too; int(a) below would silently truncate 1.5 to 1.
            raise TypeError('%s: axis must be None, an int or a tuple of ints, got %r'
                            % (label, axis))
        if not -ndim <= a < ndim:
            raise type_check.InvalidType(
                '-x.ndim <= axis < x.ndim', 'axis %d, x.ndim %d' % (a, ndim),
                msg='Invalid operation is performed in: %s (Forward)\n\nExpect: -x.ndim <= '
                    'axis < x.ndim\nActual: axis = %d, x.ndim = %d' % (label, a, ndim))
        out.append(int(a) % ndim)
    if len(set(out)) != len(out):
        raise ValueError('%s: duplicate value in axis: %s' % (label, axis))
    return tuple(sorted(out))


def check_type(axis: Any, label: str) -> None:
    """Checks that ``axis`` is None, an int or a tuple of ints, as Chainer's reductions
    (``sum``, ``prod``, ``max``, ``min``, ``logsumexp``) ask when they are called.

    Raises:
        TypeError: For anything else (a list included), naming ``label``.
    """
    if axis is None:
        return
    for a in axis if isinstance(axis, tuple) else (axis,):
        if not isinstance(a, (int, numpy.integer)) or isinstance(a, bool):
            raise TypeError('%s: axis must be None, an int or a tuple of ints, got %r'
                            % (label, axis))


@overload
def normalize_axis(axis: None, ndim: int, label: str) -> None: ...


@overload
def normalize_axis(axis: int | numpy.integer, ndim: int, label: str) -> int: ...


def normalize_axis(axis: Any, ndim: int, label: str) -> int | None:
    """Validates a single int ``axis`` and returns it as a non-negative int (None stays None).

    Raises:
        TypeError: Unless ``axis`` is an int or None (a tuple or a list is an error here).
        chainlite.utils.type_check.InvalidType: For an axis out of range, naming ``label``.
    """
    if axis is None:
        return None
    if not isinstance(axis, (int, numpy.integer)) or isinstance(axis, bool):
        raise TypeError('%s: axis must be an int, got %r' % (label, axis))
    return normalize_axes(int(axis), ndim, label)[0]


def kept_shape(shape: tuple[int, ...], axes: Sequence[int] | None) -> tuple[int, ...]:
    """``shape`` with the normalized ``axes`` (every axis for None) set to 1: the shape of a
    reduction over ``axes`` with ``keepdims``, which broadcasts back to ``shape``."""
    return tuple(1 if axes is None or i in axes else s for i, s in enumerate(shape))
