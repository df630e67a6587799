"""Helpers for error messages."""
from __future__ import annotations

from typing import Any, Sequence


def _format_array_props(arrays: Sequence[Any]) -> str:
    """Formats the shapes and dtypes of ``arrays`` for an error message: ``'(2, 3):float32'``.

    A None in ``arrays`` is written ``None``.

    Example:
        >>> import numpy as np
        >>> _format_array_props([np.zeros((2, 3), np.float32), None])
        '(2, 3):float32, None'
    """
    if not isinstance(arrays, (list, tuple)):
        raise TypeError('arrays must be a list or a tuple, got %s' % type(arrays).__name__)
    return ', '.join('None' if a is None else '%s:%s' % (a.shape, a.dtype.name)
                     for a in arrays)
