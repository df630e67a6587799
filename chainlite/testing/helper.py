"""Test decorators and context managers, as ``chainer.testing``'s helpers.

``with_requires``/``without_requires`` run a test only when installed packages do (or do
not) satisfy requirement strings, ``assert_warns`` checks that a block warns, and ``patch``
is :func:`unittest.mock.patch` that keeps the original behaviour (``wraps``) while
recording calls.
"""
from __future__ import annotations

import contextlib
import importlib.metadata
import sys
import unittest
import unittest.mock
import warnings
from typing import Any, Iterator


def _installed_version(name: str) -> str | None:
    # Under chainlite.compat's hook, ``chainer`` and ``chainermn`` are chainlite standing in
    # for Chainer 7.8.1, whatever (if any) Chainer distribution is installed.
    from packaging.utils import canonicalize_name
    from chainlite import compat
    if compat.is_installed() and canonicalize_name(name) in ('chainer', 'chainermn'):
        return compat.CHAINER_VERSION
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def _satisfied(requirements: tuple) -> bool:
    from packaging.requirements import Requirement  # only the decorators need it
    for text in requirements:
        req = Requirement(text)
        version = _installed_version(req.name)
        if version is None:
            return False
        if req.specifier and not req.specifier.contains(version, prereleases=True):
            return False
    return True


def with_requires(*requirements: str) -> Any:
    """Skips a test unless every requirement (``'numpy>=2'``, ``'scipy'``) is installed.

    Under :mod:`chainlite.compat`'s hook, ``chainer`` and ``chainermn`` count as installed at
    version :data:`chainlite.compat.CHAINER_VERSION` (7.8.1), since chainlite stands in for
    them, so a library's ``with_requires('chainer>=7')`` test runs.

    Args:
        *requirements: Requirement strings (PEP 508).

    Returns:
        A decorator for a test method or class (:func:`unittest.skipIf`).

    Example:
        >>> import unittest
        >>> from chainlite import testing
        >>> class T(unittest.TestCase):
        ...     @testing.with_requires('numpy>=1.10')
        ...     def test_new_numpy(self):
        ...         pass
    """
    return unittest.skipIf(not _satisfied(requirements),
                           'requires: %s' % ','.join(requirements))


def without_requires(*requirements: str) -> Any:
    """Skips a test when every requirement is installed (the opposite of with_requires).

    Args:
        *requirements: Requirement strings (PEP 508).

    Returns:
        A decorator for a test method or class.
    """
    return unittest.skipIf(_satisfied(requirements),
                           'requires not: %s' % ','.join(requirements))


@contextlib.contextmanager
def assert_warns(expected: type) -> Iterator[None]:
    """Checks that the block issues a warning of class ``expected``.

    Every warning is recorded while the block runs (filters are set to ``'always'``).

    Args:
        expected: A warning class.

    Raises:
        AssertionError: If no such warning was issued.

    Example:
        >>> import warnings
        >>> from chainlite import testing
        >>> with testing.assert_warns(DeprecationWarning):
        ...     warnings.warn('old', DeprecationWarning)
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        yield
    if not any(isinstance(w.message, expected) for w in caught):
        raise AssertionError('%s not triggered' % getattr(expected, '__name__', expected))


def _object_named(fullname: str) -> Any:
    head, *rest = fullname.split('.')
    obj = sys.modules.get(head)
    if obj is None:
        raise RuntimeError('patch: cannot find module %r (import it first)' % head)
    for i, attr in enumerate(rest):
        obj = getattr(obj, attr)
        if obj is None:
            raise RuntimeError('patch: cannot find %r' % '.'.join([head] + rest[:i + 1]))
    return obj


_import_object_from_name = _object_named  # Chainer's name


def _check_mock_available() -> None:
    # Chainer checks that ``mock`` imported; ``unittest.mock`` is part of Python.
    from unittest import mock  # noqa: F401


def patch(target: str, *args: Any, **kwargs: Any) -> Any:
    """:func:`unittest.mock.patch` whose mock wraps the original object by default.

    Calls are recorded and still reach the original, so a test can count them without
    changing behaviour.

    Args:
        target: The full dotted name of the object to patch.
        *args: Passed to :func:`unittest.mock.patch`.
        **kwargs: Passed to :func:`unittest.mock.patch`; ``wraps`` defaults to the object
            ``target`` names.

    Returns:
        The patcher (a context manager and decorator).

    Example:
        >>> import numpy
        >>> from chainlite import testing
        >>> with testing.patch('numpy.zeros') as zeros:
        ...     _ = numpy.zeros(3)
        >>> zeros.call_count
        1
    """
    wraps = kwargs.pop('wraps') if 'wraps' in kwargs else _object_named(target)
    return unittest.mock.patch(target, *args, wraps=wraps, **kwargs)
