"""``chainer.backends._cpu``: the CPU device and the conversion of arrays to NumPy."""
from __future__ import annotations

from typing import Any

import numpy

from chainlite.backend import CpuDevice  # noqa: F401
from chainlite.backends import cuda


def _to_cpu(array: Any) -> Any:
    """Returns ``array`` (an array, a Variable's data or a scalar) as a NumPy array.

    Example:
        >>> from chainlite.backends._cpu import _to_cpu
        >>> _to_cpu(3.0)
        array(3.)
    """
    if array is None:
        return None
    if isinstance(array, (numpy.ndarray, numpy.generic)) or hasattr(array, 'get'):
        return cuda.to_cpu(array)
    return numpy.asarray(array)
