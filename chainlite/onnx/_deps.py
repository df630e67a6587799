"""The optional dependencies of :mod:`chainlite.onnx`, imported only when they are needed."""
from __future__ import annotations

from typing import Any

_INSTALL_HINT = "install onnx (pip install -e '.[onnx]')"


def onnx() -> Any:
    """Returns the ``onnx`` module, or raises an ImportError saying how to install it."""
    try:
        import onnx as module
    except ImportError as e:
        raise ImportError('chainlite.onnx needs the onnx package to export models: %s'
                          % _INSTALL_HINT) from e
    return module


def onnxruntime() -> Any:
    """Returns the ``onnxruntime`` module, or None where it is not installed."""
    try:
        import onnxruntime as module
    except ImportError:
        return None
    return module
