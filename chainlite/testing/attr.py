"""pytest markers of Chainer's test attributes (``@attr.gpu``, ``@attr.slow``, ...).

Tests that need a GPU or cuDNN are marked and run where CuPy offers them when the test runs
(the tests' CuPy stand-in counts as a GPU without cuDNN); elsewhere they are skipped with the
reason, under both pytest and unittest. Tests that need ChainerX or iDeep are marked and
skipped (chainlite has neither). The marks themselves stay, so
``pytest -m 'not gpu'`` selects as it does for Chainer. Markers this project does not
register are created without pytest's unknown-marker warning; register them (``markers`` in
the pytest configuration) to use ``--strict-markers``.
"""
from __future__ import annotations

import functools
import inspect
import os
import unittest
import warnings
from typing import Any, Callable, Optional

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


def _gpu_skip_reason(gpu_num: int = 1) -> Optional[str]:
    """None if ``gpu_num`` CUDA GPUs can be used now, else why not."""
    from chainlite.backends import cuda
    limit = int(os.getenv('CHAINER_TEST_GPU_LIMIT', '-1'))
    if 0 <= limit < gpu_num:
        return '{} GPUs required'.format(gpu_num)  # Chainer's message for its limit
    if not cuda.available:
        return 'CUDA GPU required: %s' % cuda._reason
    count = int(cuda.cupy.cuda.runtime.getDeviceCount())
    if count < gpu_num:
        return '%d CUDA GPUs required; %d found' % (gpu_num, count)
    return None


def _cudnn_skip_reason() -> Optional[str]:
    from chainlite.backends import cuda
    reason = _gpu_skip_reason()
    if reason is None and not cuda.cudnn_enabled:
        reason = 'cuDNN required: the CuPy in use offers no cuDNN'
    return reason


def _guarded(function: Callable[..., Any], why_not: Callable[[], Optional[str]]) -> Any:
    # The function, skipping (unittest.SkipTest, which pytest honours too) when it is called
    # while why_not() gives a reason.
    @functools.wraps(function)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        reason = why_not()
        if reason is not None:
            raise unittest.SkipTest(reason)
        return function(*args, **kwargs)
    return guarded


def _marked_and_checked(name: str, why_not: Callable[[], Optional[str]]) -> Callable[[Any], Any]:
    # Marks a test function or class with ``name``; it runs only where why_not() gives None
    # when the test runs (setUp/setup_method of a class included, as they may use the GPU).
    def guard_class(cls: type) -> type:
        for attr_name, member in inspect.getmembers(cls, inspect.isfunction):
            if attr_name.startswith('test') or attr_name in ('setUp', 'setup_method'):
                setattr(cls, attr_name, _guarded(member, why_not))
        return _mark(name)(cls)

    def decorator(target: Any) -> Any:
        if isinstance(target, _bundle.CaseBundle):
            for cls in target.classes:
                guard_class(cls)
            return target
        if isinstance(target, type):
            return guard_class(target)
        return _mark(name)(_guarded(target, why_not))
    return decorator


def multi_gpu(gpu_num: int) -> Callable[[Any], Any]:
    """Marks a test as needing ``gpu_num`` CUDA GPUs (marker ``gpu``).

    The test runs where that many GPUs can be used when it runs (CuPy with GPUs, or the
    tests' CuPy stand-in installed, which has two), and is skipped with the reason elsewhere,
    or, as in Chainer, where the environment variable ``CHAINER_TEST_GPU_LIMIT`` is at least
    0 and less than ``gpu_num``.

    Args:
        gpu_num: The number of GPUs the test needs.

    Returns:
        The decorator, for a test function or class.
    """
    return _marked_and_checked('gpu', lambda: _gpu_skip_reason(gpu_num))


def gpu(f: Any) -> Any:
    """Marks a test as needing one CUDA GPU (marker ``gpu``).

    The test runs where a GPU can be used when it runs (CuPy with a GPU, or the tests' CuPy
    stand-in installed), and is skipped with the reason elsewhere.

    Example:
        >>> @gpu
        ... def test_on_gpu():
        ...     pass
        >>> [m.name for m in test_on_gpu.pytestmark]
        ['gpu']
    """
    return multi_gpu(1)(f)


def cudnn(f: Any) -> Any:
    """Marks a test as needing cuDNN (marker ``cudnn``): it runs where CuPy offers cuDNN."""
    return _marked_and_checked('cudnn', _cudnn_skip_reason)(f)


def ideep(f: Any) -> Any:
    """Marks a test as needing iDeep (marker ``ideep``); it is skipped."""
    return _marked_and_skipped('ideep', 'iDeep required; chainlite has no iDeep backend')(f)


def chainerx(f: Any) -> Any:
    """Marks a test as needing ChainerX (marker ``chainerx``); it is skipped."""
    return _marked_and_skipped('chainerx', 'ChainerX required; chainlite has no ChainerX')(f)
