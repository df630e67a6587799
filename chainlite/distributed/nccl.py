"""NCCL, NVIDIA's GPU collectives: not available in chainlite, a CPU framework.

The module exists so that code written for ChainerMN can check ``nccl._available`` (False)
and get a clear error from the rest.
"""
from __future__ import annotations

_available = False


def _unavailable(name: str) -> RuntimeError:
    return RuntimeError('chainermn.nccl.%s: NCCL needs NVIDIA GPUs and CuPy, which chainlite '
                        '(a CPU framework) does not have' % name)


def get_build_version() -> int:
    """Raises ``RuntimeError``: there is no NCCL."""
    raise _unavailable('get_build_version')


def get_version() -> int:
    """Raises ``RuntimeError``: there is no NCCL."""
    raise _unavailable('get_version')
