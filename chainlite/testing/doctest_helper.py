"""Conditions for skipping doctests (``.. doctest:: :skipif: ...`` in Sphinx docs)."""
from __future__ import annotations

import os

from chainlite.testing import helper


def skipif(condition: bool) -> bool:
    """Returns ``condition``, except on Read the Docs (``READTHEDOCS=True``): never skip there.

    The docs build must show every example's code, so it runs them all.

    Example:
        >>> skipif(True) == (os.environ.get('READTHEDOCS') != 'True')
        True
    """
    if os.environ.get('READTHEDOCS') == 'True':
        return False
    return condition


def skipif_requires_satisfied(*requirements: str) -> bool:
    """Returns whether to skip a doctest because ``requirements`` are all installed.

    Args:
        requirements: Requirement strings such as ``'numpy>=1.0'``.

    Returns:
        True (subject to :func:`skipif`) if every requirement is satisfied.

    Example:
        >>> skipif_requires_satisfied('numpy>=1.0'), skipif_requires_satisfied('numpy<1.0')
        (True, False)
    """
    if not helper._satisfied(requirements):
        return False
    return skipif(True)


def skipif_not_enough_cuda_devices(device_count: int) -> bool:
    """Returns whether to skip a doctest needing ``device_count`` GPUs.

    As in Chainer, only a limit set in ``CHAINER_TEST_GPU_LIMIT`` (0 or more) below
    ``device_count`` skips.

    Example:
        >>> import os
        >>> skipif_not_enough_cuda_devices(1) == (
        ...     0 <= int(os.environ.get('CHAINER_TEST_GPU_LIMIT', '-1')) < 1)
        True
    """
    limit = int(os.environ.get('CHAINER_TEST_GPU_LIMIT', '-1'))
    return skipif(0 <= limit < device_count)
