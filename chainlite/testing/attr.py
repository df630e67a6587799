"""pytest markers of Chainer's test attributes (``@attr.gpu``, ``@attr.slow``, ...).

chainlite runs on NumPy alone, so tests that need a GPU, cuDNN, ChainerX or iDeep are marked
and skipped, with the reason, under both pytest and unittest. The marks themselves stay, so
``pytest -m 'not gpu'`` selects as it does for Chainer. Markers this project does not
register are created without pytest's unknown-marker warning; register them (``markers`` in
the pytest configuration) to use ``--strict-markers``.
"""
from __future__ import annotations

import unittest
import warnings
from typing import Any, Callable

from chainlite.testing import _bundle

_checked = False
_error: ImportError | None = None


def get_error() -> ImportError | None:
    """Returns why pytest, which the markers need, cannot be imported, or None if it can.

    Example:
        >>> get_error() is None  # pytest is installed where these doctests run
        True
    """
    global _checked, _error
    if not _checked:
        try:
            import pytest  # noqa: F401
        except ImportError as e:
            _error = e
        _checked = True
    return _error


def is_available() -> bool:
    """Returns whether the markers can be used: whether pytest can be imported.

    Example:
        >>> is_available()
        True
    """
    return get_error() is None


def check_available() -> None:
    """Raises RuntimeError, with the reason, if pytest cannot be imported; else does nothing.

    Libraries' own marker modules (ChainerCV's ``utils/testing/attr.py``) call it first.

    Raises:
        RuntimeError: pytest cannot be imported; the message gives the ImportError.

    Example:
        >>> check_available()
    """
    error = get_error()
    if error is not None:
        raise RuntimeError('%s is not available.\n\nReason: %s: %s'
                           % (__name__, type(error).__name__, error))


def _dummy_callable(*args: Any, **kwargs: Any) -> Any:
    # What Chainer gives for a marker when pytest is missing: calling it raises why.
    check_available()
    raise AssertionError('pytest is available: use the marker itself')


def _mark(name: str, *args: Any, **kwargs: Any) -> Any:
    import pytest  # only test code needs pytest
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', pytest.PytestUnknownMarkWarning)
        return getattr(pytest.mark, name)(*args, **kwargs) if args or kwargs \
            else getattr(pytest.mark, name)


def _marked_and_skipped(name: str, reason: str) -> Callable[[Any], Any]:
    import pytest

    def skip(item):
        # unittest.skip for plain unittest runs, the pytest mark for pytest-style classes.
        return _mark(name)(pytest.mark.skip(reason=reason)(unittest.skip(reason)(item)))

    def decorator(target):
        if isinstance(target, _bundle.CaseBundle):
            for cls in target.classes:
                skip(cls)
            return target
        return skip(target)
    return decorator


def slow(*args: Any, **kwargs: Any) -> Any:
    """The ``slow`` marker: ``pytest.mark.slow``; this project's default run deselects it.

    Example:
        >>> @slow
        ... def test_long():
        ...     pass
        >>> test_long.pytestmark[0].name
        'slow'
    """
    return _mark('slow', *args, **kwargs)


def multi_gpu(gpu_num: int) -> Callable[[Any], Any]:
    """Marks a test as needing ``gpu_num`` CUDA GPUs (marker ``gpu``); it is skipped.

    Args:
        gpu_num: The number of GPUs the test needs.

    Returns:
        The decorator, for a test function or class.
    """
    return _marked_and_skipped(
        'gpu', '%d CUDA GPU%s required; chainlite runs on NumPy (CPU) only'
        % (gpu_num, '' if gpu_num == 1 else 's'))


def gpu(f: Any) -> Any:
    """Marks a test as needing one CUDA GPU (marker ``gpu``); it is skipped.

    Example:
        >>> @gpu
        ... def test_on_gpu():
        ...     pass
        >>> sorted(m.name for m in test_on_gpu.pytestmark)
        ['gpu', 'skip']
    """
    return multi_gpu(1)(f)


def cudnn(f: Any) -> Any:
    """Marks a test as needing cuDNN (marker ``cudnn``); it is skipped."""
    return _marked_and_skipped('cudnn', 'cuDNN required; chainlite runs on NumPy only')(f)


def ideep(f: Any) -> Any:
    """Marks a test as needing iDeep (marker ``ideep``); it is skipped."""
    return _marked_and_skipped('ideep', 'iDeep required; chainlite has no iDeep backend')(f)


def chainerx(f: Any) -> Any:
    """Marks a test as needing ChainerX (marker ``chainerx``); it is skipped."""
    return _marked_and_skipped('chainerx', 'ChainerX required; chainlite has no ChainerX')(f)
