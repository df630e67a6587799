"""What chainlite runs on: platform and library versions, for bug reports.

Example:
    >>> import io, chainlite
    >>> out = io.StringIO()
    >>> chainlite.print_runtime_info(out)
    >>> out.getvalue().splitlines()[1].startswith('chainlite: ')
    True
"""
from __future__ import annotations

import platform
import sys
from typing import Any, Optional

import numpy


def _version_of(module_name: str) -> Optional[str]:
    # The version of an optional library that is already importable, or None.
    try:
        module = __import__(module_name)
    except ImportError:
        return None
    return getattr(module, '__version__', 'unknown version')


class _RuntimeInfo:
    """A snapshot of the versions; ``str()`` gives the report ``print_runtime_info`` writes."""

    def __init__(self) -> None:
        from chainlite import _version
        self.chainer_version = _version.__version__
        self.python_version = platform.python_version()
        self.platform_version = platform.platform()
        self.numpy_version = numpy.__version__
        self.scipy_version = _version_of('scipy')
        # chainlite computes with NumPy only (see the migration guide): no CuPy, no iDeep,
        # no ChainerX, whatever is installed.
        self.cuda_info = None
        self.ideep_version = None
        self.chainerx_available = False

    def __str__(self) -> str:
        lines = [
            'Platform: %s' % self.platform_version,
            'chainlite: %s' % self.chainer_version,
        ]
        compat = sys.modules.get('chainlite.compat')
        if compat is not None and compat.is_installed():
            # Under the hook chainlite stands in for Chainer, whose version scripts read here.
            lines.append('Chainer: %s (chainlite standing in)' % compat.CHAINER_VERSION)
        lines += [
            'Python: %s' % self.python_version,
            'NumPy: %s' % self.numpy_version,
            'SciPy: %s' % (self.scipy_version or 'Not Available'),
            'ChainerX: Not Available',
            'CuPy: Not Available',
            'iDeep: Not Available',
        ]
        return '\n'.join(lines) + '\n'


def _get_runtime_info() -> _RuntimeInfo:
    return _RuntimeInfo()


def print_runtime_info(out: Any = None) -> None:
    """Writes the platform and the versions of chainlite, Python, NumPy and SciPy.

    Paste its output into bug reports. (CuPy, iDeep and ChainerX, which Chainer also lists,
    are always reported as not available: chainlite runs on NumPy.)

    Args:
        out: A writable text stream; ``sys.stdout`` if None.
    """
    if out is None:
        out = sys.stdout
    out.write(str(_get_runtime_info()))
    if hasattr(out, 'flush'):
        out.flush()
