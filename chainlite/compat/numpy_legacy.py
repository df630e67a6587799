"""NumPy-1 legacy mode: the names NumPy 2 removed, put back for old code in this process.

Code written for Chainer was written for NumPy 1, and much of it (libraries built on Chainer
above all) still says ``numpy.float``, ``numpy.asscalar(a)`` or ``numpy.in1d(a, b)``, which
NumPy 1.20-1.25 deprecated and NumPy 2 removed. :func:`install_numpy_legacy` adds them back
to the ``numpy`` module, each meaning what it meant in NumPy 1 (``numpy.float`` is the
builtin ``float``, ``numpy.float_`` is ``numpy.float64``, ``numpy.asscalar(a)`` is
``a.item()``), so that such code runs unchanged.

It is off by default, and only ``python -m chainlite.compat --numpy-legacy SCRIPT.py``,
``chainlite.compat.install(numpy_legacy=True)`` or a call of :func:`install_numpy_legacy`
turns it on, because it changes the ``numpy`` module for every package in the process: code
that tests ``hasattr(numpy, 'float')`` to tell NumPy 1 from NumPy 2 is misled, and new code
could come to depend on names that NumPy will not bring back. It only adds names that the
installed NumPy lacks, never replaces one, and :func:`uninstall_numpy_legacy` removes what it
added.

What it cannot bring back: ``float(a)`` and ``int(a)`` of an array of one element with
``ndim > 0`` raise a TypeError from NumPy 2.4 on (a DeprecationWarning in NumPy 2.0-2.3),
inside NumPy's own C code. Code that relies on it needs ``numpy<2.4``.

Example:
    >>> import numpy
    >>> from chainlite.compat import numpy_legacy
    >>> added = numpy_legacy.install_numpy_legacy()
    >>> numpy.float is float and numpy.asscalar(numpy.array([3])) == 3
    True
    >>> numpy_legacy.uninstall_numpy_legacy()
    >>> hasattr(numpy, 'asscalar')
    False
"""
from __future__ import annotations

import builtins
from typing import Any, Callable

import numpy

__all__ = ['install_numpy_legacy', 'uninstall_numpy_legacy', 'is_numpy_legacy_installed',
           'legacy_names']

# The names this mode added to numpy, so that uninstalling removes exactly those.
_added: list[str] = []
_installed = False


def _asscalar(a: Any) -> Any:
    """NumPy 1's ``numpy.asscalar``: the single element of ``a`` as a Python scalar."""
    return a.item()


def _in1d(ar1: Any, ar2: Any, assume_unique: bool = False, invert: bool = False,
          **kwargs: Any) -> numpy.ndarray:
    """NumPy 1's ``numpy.in1d``: ``numpy.isin`` on the flattened ``ar1``."""
    return numpy.isin(numpy.ravel(ar1), ar2, assume_unique=assume_unique, invert=invert,
                      **kwargs)


def _msort(a: Any) -> numpy.ndarray:
    """NumPy 1's ``numpy.msort``: sorted along the first axis."""
    return numpy.sort(a, axis=0)


def _asfarray(a: Any, dtype: Any = numpy.float64) -> numpy.ndarray:
    """NumPy 1's ``numpy.asfarray``: ``a`` as an array of floats (float64 unless inexact)."""
    dtype = numpy.dtype(dtype)
    if not numpy.issubdtype(dtype, numpy.inexact):
        dtype = numpy.dtype(numpy.float64)
    return numpy.asarray(a, dtype=dtype)


def _issubclass_(arg1: Any, arg2: Any) -> bool:
    """NumPy 1's ``numpy.issubclass_``: ``issubclass`` that answers False for non-classes."""
    try:
        return issubclass(arg1, arg2)
    except TypeError:
        return False


def _trapz(*args: Any, **kwargs: Any) -> Any:
    """NumPy 1's ``numpy.trapz``: ``numpy.trapezoid``."""
    trapezoid = getattr(numpy, 'trapezoid')  # (NumPy 2.0's type stubs lack it)
    return trapezoid(*args, **kwargs)


def legacy_names() -> dict[str, Any]:
    """The names that legacy mode gives ``numpy``, each with what it meant in NumPy 1.

    Returns:
        A new dictionary, name -> object, whether or not the installed NumPy has the name.

    Example:
        >>> from chainlite.compat import numpy_legacy
        >>> names = numpy_legacy.legacy_names()
        >>> names['int'] is int, names['float_'] is numpy.float64
        (True, True)
    """
    functions: dict[str, Callable[..., Any]] = {
        'asscalar': _asscalar, 'in1d': _in1d, 'msort': _msort, 'asfarray': _asfarray,
        'issubclass_': _issubclass_, 'trapz': _trapz,
        'product': numpy.prod, 'cumproduct': numpy.cumprod, 'alltrue': numpy.all,
        'sometrue': numpy.any, 'round_': numpy.round, 'mat': numpy.asmatrix,
    }
    return {
        # The builtin types, as NumPy 1.19 and older named them.
        'bool': builtins.bool, 'int': builtins.int, 'float': builtins.float,
        'complex': builtins.complex, 'object': builtins.object, 'str': builtins.str,
        'unicode': builtins.str,
        # Scalar types under their NumPy 1 names.
        'float_': numpy.float64, 'complex_': numpy.complex128, 'cfloat': numpy.complex128,
        'singlecomplex': numpy.complex64, 'longfloat': numpy.longdouble,
        'longcomplex': numpy.clongdouble, 'clongfloat': numpy.clongdouble,
        'unicode_': numpy.str_, 'string_': numpy.bytes_, 'int0': numpy.intp,
        'uint0': numpy.uintp, 'bool8': numpy.bool_, 'object0': numpy.object_,
        'str0': numpy.str_, 'bytes0': numpy.bytes_, 'void0': numpy.void,
        # Constants.
        'Inf': numpy.inf, 'Infinity': numpy.inf, 'infty': numpy.inf, 'PINF': numpy.inf,
        'NINF': -numpy.inf, 'NaN': numpy.nan, 'PZERO': 0.0, 'NZERO': -0.0,
        **functions,
    }


def install_numpy_legacy() -> list[str]:
    """Adds the names NumPy 2 removed to the ``numpy`` module, for this process.

    Only names the installed NumPy lacks are added (``numpy.bool``, back in NumPy 2 as
    ``numpy.bool_``, stays NumPy's). Installing twice does nothing more.

    Returns:
        The names added by this call (empty when already installed).
    """
    global _installed
    if _installed:
        return []
    _installed = True
    for name, value in legacy_names().items():
        if name not in vars(numpy):
            # Not hasattr: NumPy's module __getattr__ warns about some names it lacks.
            setattr(numpy, name, value)
            _added.append(name)
    return list(_added)


def uninstall_numpy_legacy() -> None:
    """Removes the names :func:`install_numpy_legacy` added; does nothing if not installed."""
    global _installed
    for name in _added:
        vars(numpy).pop(name, None)
    _added.clear()
    _installed = False


def is_numpy_legacy_installed() -> bool:
    """Whether legacy mode is on in this process.

    Returns:
        True between :func:`install_numpy_legacy` and :func:`uninstall_numpy_legacy`.
    """
    return _installed
