"""NCCL, NVIDIA's GPU collectives, through CuPy's bindings (``cupy.cuda.nccl``).

ChainerMN's ``chainermn.nccl``: ``_available`` says whether NCCL can be used (CuPy, a GPU
and CuPy's NCCL library); the other names (``NcclCommunicator``, ``get_unique_id``,
``NCCL_FLOAT32``, ...) are CuPy's, and where NCCL cannot be used they raise a RuntimeError
that says what is missing.
"""
from __future__ import annotations

import importlib
import warnings
from typing import Any

from chainlite.backends import cuda


def _module(what: str) -> Any:
    """CuPy's NCCL module; raises RuntimeError naming what is missing where there is none.

    Args:
        what: Names the caller in the message.

    Returns:
        ``cupy.cuda.nccl`` (with ``available`` True).

    Raises:
        RuntimeError: Without CuPy or a GPU, or with a CuPy that cannot load NCCL.
    """
    if not cuda.available:
        raise RuntimeError('%s: NCCL needs NVIDIA GPUs and CuPy with NCCL, and CUDA is not '
                           'available: %s' % (what, cuda._reason))
    cupy = cuda.cupy
    module = getattr(cupy.cuda, 'nccl', None)
    if module is None and not getattr(cupy, '_is_stand_in', False):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')   # CuPy warns when libnccl cannot load
                module = importlib.import_module('cupy.cuda.nccl')
        except ImportError:
            module = None
    if module is None or not getattr(module, 'available', False):
        raise RuntimeError(
            "%s: NCCL needs NVIDIA GPUs and CuPy with NCCL, and CuPy %s has no NCCL (its "
            "bindings cannot load libnccl.so.2: pip install nvidia-nccl-cu12 or "
            "nvidia-nccl-cu13, matching CuPy's CUDA); the 'naive' and 'flat' communicators "
            "move GPU arrays through host memory without NCCL"
            % (what, getattr(cupy, '__version__', '?')))
    return module


def _is_available() -> bool:
    try:
        _module('nccl')
    except RuntimeError:
        return False
    return True


def __getattr__(name: str) -> Any:
    if name == '_available':
        return _is_available()
    if name.startswith('__'):
        raise AttributeError(name)
    return getattr(_module('chainermn.nccl.%s' % name), name)


def get_build_version() -> int:
    """The NCCL version CuPy was built with (e.g. 21803).

    Raises:
        RuntimeError: Where NCCL cannot be used (the message says what is missing).
    """
    return int(_module('chainermn.nccl.get_build_version').get_build_version())


def get_version() -> int:
    """The version of the NCCL library loaded.

    Raises:
        RuntimeError: Where NCCL cannot be used (the message says what is missing).
    """
    return int(_module('chainermn.nccl.get_version').get_version())
