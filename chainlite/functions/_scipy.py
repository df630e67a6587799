"""SciPy's submodules, imported on first use, and their GPU counterparts.

Importing ``scipy.special`` costs about 120 ms and 30 MB, which most models never need; the
special functions and ``sparse_matmul`` reach SciPy through these stand-ins instead. On GPU
arrays the special functions come from CuPy's ``cupyx.scipy.special``
(:func:`special_of`).
"""
from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import numpy

from chainlite.backends import cuda

_ndarray = numpy.ndarray


class _LazyModule:
    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attr)


special = _LazyModule('scipy.special')
sparse = _LazyModule('scipy.sparse')


def special_of(*arrays: Any) -> Any:
    """The special functions for the arrays' device: ``scipy.special`` (lazily imported)
    for NumPy arrays and scalars, ``cupyx.scipy.special`` if any of them is a GPU array.

    Args:
        *arrays: The operands of the special function (arrays or scalars).

    Returns:
        A module-like object with SciPy's special functions (only those CuPy has, for GPU
        arrays).

    Example:
        >>> import numpy as np
        >>> from chainlite.functions import _scipy
        >>> float(_scipy.special_of(np.zeros(1)).erf(np.ones(1))[0])  # doctest: +ELLIPSIS
        0.8427...
    """
    for a in arrays:
        if a.__class__ is not _ndarray and cuda.is_gpu_array(a):
            return gpu_special()
    return special


def gpu_special() -> Any:
    """``cupyx.scipy.special`` of chainlite's CuPy (the test stand-in's own copy of it, when
    the stand-in is installed).

    Raises:
        RuntimeError: No GPU can be used (the message says why).
    """
    xp = cuda._cupy()
    if getattr(xp, '_is_stand_in', False):
        return xp.special
    return importlib.import_module('cupyx.scipy.special')
