"""Decorators that run a flaky test several times and judge it by its number of successes."""
from __future__ import annotations

import functools
import traceback
import unittest
from typing import Any, Callable


class QuietTestRunner:
    """Runs a unittest suite into a fresh ``unittest.TestResult``, printing nothing.

    Example:
        >>> import unittest
        >>> class T(unittest.TestCase):
        ...     def test_fails(self):
        ...         self.fail('no')
        >>> result = QuietTestRunner().run(unittest.TestSuite([T('test_fails')]))
        >>> result.testsRun, len(result.failures)
        (1, 1)
    """

    def run(self, suite: Any) -> unittest.TestResult:
        """Runs ``suite`` and returns its result."""
        result = unittest.TestResult()
        suite(result)
        return result


def _is_skip(e: BaseException) -> bool:
    # pytest.skip() raises a class named Skipped; importing pytest here is not needed.
    return isinstance(e, unittest.SkipTest) or type(e).__name__ == 'Skipped'


def _trial(f: Callable, args: tuple, kwargs: dict) -> None:
    if args and isinstance(args[0], unittest.TestCase):
        # A fresh instance per trial, with its own setUp and tearDown.
        case = args[0]
        fresh = type(case)(case._testMethodName)
        fresh.setUp()
        try:
            f(fresh, *args[1:], **kwargs)
        finally:
            fresh.tearDown()
    else:
        f(*args, **kwargs)


def repeat_with_success_at_least(times: int, min_success: int) -> Callable[[Callable], Callable]:
    """Decorator running a test up to ``times`` times; it passes after ``min_success`` passes.

    Trials stop as soon as the outcome is decided. A skip in any trial skips the test
    (``pytest.skip`` becomes a ``unittest.SkipTest`` with the same reason). A
    ``unittest.TestCase`` method gets a fresh instance, with ``setUp`` and ``tearDown``, per
    trial; a pytest-style test is called again with the same arguments (fixtures are not
    rebuilt).

    Args:
        times: The maximum number of trials.
        min_success: The number of successful trials needed.

    Returns:
        The decorator.

    Raises:
        AssertionError: If ``min_success`` is not between 0 and ``times``; from the decorated
            test, when too many trials failed: the message counts failures and successes
            and shows the first failure's traceback (after "The first error message:").

    Example:
        >>> import numpy as np
        >>> @repeat_with_success_at_least(10, 8)
        ... def test_mostly_small():
        ...     assert np.random.rand() < 0.999
        >>> test_mostly_small()
    """
    if not 0 <= min_success <= times:
        # An AssertionError, as Chainer raises for this misuse of the decorator.
        raise AssertionError('repeat_with_success_at_least: need 0 <= min_success <= times, '
                             'got min_success=%r, times=%r' % (min_success, times))

    def decorator(f: Callable) -> Callable:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> None:
            successes = failures = 0
            first_failure = None
            while successes < min_success:
                try:
                    _trial(f, args, kwargs)
                except BaseException as e:
                    if _is_skip(e):
                        if isinstance(e, unittest.SkipTest):
                            raise
                        # pytest.skip(): a unittest.SkipTest with its reason, as in Chainer,
                        # which both pytest and unittest runners report as a skip.
                        raise unittest.SkipTest(getattr(e, 'msg', str(e))) from None
                    if not isinstance(e, Exception):
                        raise  # KeyboardInterrupt, SystemExit, pytest.fail/exit
                    failures += 1
                    if first_failure is None:
                        first_failure = ''.join(traceback.format_exception(e))
                    if failures > times - min_success:
                        raise AssertionError(
                            '%d of %d trials must succeed; failures: %d, successes: %d\n\n'
                            'The first error message:\n%s'
                            % (min_success, times, failures, successes, first_failure)) from None
                else:
                    successes += 1
        return wrapper
    return decorator


def repeat(times: int) -> Callable[[Callable], Callable]:
    """Decorator requiring a test to pass ``times`` times in a row.

    Args:
        times: The number of trials.

    Returns:
        The decorator (see :func:`repeat_with_success_at_least`).
    """
    return repeat_with_success_at_least(times, times)


def retry(times: int) -> Callable[[Callable], Callable]:
    """Decorator passing a test as soon as one of up to ``times`` trials passes.

    Args:
        times: The maximum number of trials.

    Returns:
        The decorator (see :func:`repeat_with_success_at_least`).
    """
    return repeat_with_success_at_least(times, 1)
