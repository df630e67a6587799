"""Type aliases for annotations, as in Chainer's ``chainer.types``.

chainlite ships a ``py.typed`` marker, so mypy and IDEs check user code against these
annotations. The aliases name what the public functions accept:

- :data:`VariableOrArray`: what a differentiable function takes as input (a
  :class:`~chainlite.Variable` or a NumPy array; functions return a Variable).
- :data:`ShapeSpec`, :data:`DTypeSpec`, :data:`ScalarValue`, :data:`InitializerSpec`,
  :data:`DeviceSpec`: shapes, dtypes, scalars, initializers and devices as accepted by links,
  initializers and ``get_device``.

Example:
    >>> import numpy
    >>> import chainlite.functions as F
    >>> from chainlite import types
    >>> def double(x: types.VariableOrArray) -> 'chainlite.Variable':
    ...     return F.relu(x) * 2
    >>> double(numpy.array([-1.0, 3.0])).array
    array([0., 6.])
"""
from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any, Callable, Protocol, Sequence, Union

import numpy

if TYPE_CHECKING:
    import chainlite  # noqa: F401
    from chainlite import backend  # noqa: F401
    from chainlite import initializer  # noqa: F401

Shape = tuple[int, ...]
"""A concrete shape."""

ShapeSpec = Union[int, Sequence[int]]
"""A shape as the library accepts it: an int for a vector, or a sequence of ints."""

DTypeSpec = Union[numpy.dtype, type, str, None]
"""Anything :func:`numpy.dtype` accepts (``numpy.float32``, ``'f'``, ...)."""

NdArray = numpy.ndarray
"""The array type chainlite computes with."""

Xp = Any
"""An array module (``numpy``), as returned by ``chainlite.backend.get_array_module``."""

ScalarValue = Union[numpy.generic, bool, int, float, complex, numbers.Number]
"""A Python or NumPy scalar."""

VariableOrArray = Union['chainlite.variable.Variable', numpy.ndarray]
"""An input of a differentiable function: a Variable or an array (wrapped on the fly)."""


class AbstractInitializer(Protocol):
    """What links accept as an initializer: a callable that fills an array in place."""

    dtype: DTypeSpec

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Spelled out so that the class has an annotated __init__ (typing would give it an
        # unannotated one); as for any protocol, instances are not made from it.
        if type(self) is AbstractInitializer:
            raise TypeError('Protocols cannot be instantiated')

    def __call__(self, array: numpy.ndarray) -> None:
        """Fills ``array`` in place."""


InitializerSpec = Union['initializer.Initializer', Callable[[numpy.ndarray], None],
                        ScalarValue, numpy.ndarray, None]
"""An initializer, a scalar (constant fill), an array (copied), or None (the default)."""

DeviceSpec = Union['backend.Device', str, int, numpy.integer, None]
"""A device: a Device, ``'@numpy'``, ``-1`` or ``'-1'`` (the CPU)."""

CudaDeviceSpec = Union['backend.GpuDevice', int, numpy.integer]
"""A CUDA device as Chainer's functions taking one accept it: a GpuDevice or an id (chainlite
has no CUDA device; the name is kept for annotations in libraries' code)."""

__all__ = ['AbstractInitializer', 'CudaDeviceSpec', 'DTypeSpec', 'DeviceSpec', 'InitializerSpec',
           'NdArray', 'ScalarValue', 'Shape', 'ShapeSpec', 'VariableOrArray', 'Xp']
