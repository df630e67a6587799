"""The iDeep (Intel64) backend's public names, as ``chainer.backends.intel64``.

chainlite computes with NumPy only, so iDeep is never available: :func:`is_ideep_available`
is False, :func:`should_use_ideep` is False for every level, and :func:`check_ideep_available`
raises. ``'@intel64'`` names the CPU device (:func:`chainlite.get_device`).

Example:
    >>> from chainlite.backends import intel64
    >>> intel64.is_ideep_available(), intel64.should_use_ideep('>=auto')
    (False, False)
"""
from __future__ import annotations

from typing import Any

from chainlite.backend import Intel64Device  # noqa: F401

ideep = None
_ideep_version = None
_LEVELS = ('==always', '>=auto')


class mdarray:
    """Stands in for ``ideep4py.mdarray``: no array is one, ``isinstance`` is simply False."""



def is_ideep_available() -> bool:
    """Returns False: chainlite has no iDeep backend."""
    return False


def check_ideep_available() -> None:
    """Raises RuntimeError: iDeep is not available to chainlite.

    Raises:
        RuntimeError: Always.
    """
    raise RuntimeError('iDeep is not available: chainlite computes on NumPy only '
                       '(chainer.backends.intel64 has no meaning here)')


def should_use_ideep(level: str) -> bool:
    """Returns False (iDeep is never used); an unknown ``level`` raises as in Chainer.

    Args:
        level: ``'==always'`` or ``'>=auto'``.

    Returns:
        False.

    Raises:
        ValueError: For another level.
    """
    if level not in _LEVELS:
        raise ValueError('should_use_ideep: invalid iDeep use level %r (must be either of '
                         '"==always" or ">=auto")' % (level,))
    return False


def inputs_all_ready(inputs: Any, supported_ndim: tuple = (2, 4)) -> bool:
    """Returns False: no input is ever ready for an iDeep primitive."""
    return False
