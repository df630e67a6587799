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


def _array_to_cpu(array: Any) -> Any:
    """Returns one array as a NumPy array: None stays None, a scalar becomes a 0-d array.

    Raises:
        TypeError: For what is neither an array nor a scalar (a list, for example).

    Example:
        >>> from chainlite.backends._cpu import _array_to_cpu
        >>> _array_to_cpu(2)
        array(2)
    """
    if array is None or isinstance(array, numpy.ndarray):
        return array
    if hasattr(array, 'get'):  # a CuPy array, should one be passed in
        return cuda.to_cpu(array)
    if numpy.isscalar(array):
        return numpy.asarray(array)
    raise TypeError('Array cannot be converted into an numpy.ndarray\nActual type: %s.'
                    % type(array))
