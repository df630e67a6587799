"""SciPy's submodules, imported on first use.

Importing ``scipy.special`` costs about 120 ms and 30 MB, which most models never need; the
special functions and ``sparse_matmul`` reach SciPy through these stand-ins instead.
"""
from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


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
