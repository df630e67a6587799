"""Chainer's ``chainer.testing._distribution_test``: the base of distribution tests.

:class:`~chainlite.testing.distribution_test.distribution_unittest` lives in
:mod:`chainlite.testing.distribution_test`; this module gives it under Chainer's private name,
with the decorator Chainer's distribution tests use.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from chainlite.testing import distribution_test as _distribution_test

distribution_unittest = _distribution_test.distribution_unittest


def skip_not_in_test_target(
        test_target: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Skips the decorated test method unless ``test_target`` is in ``self.test_targets``.

    Args:
        test_target: A name such as ``'log_prob'``.

    Returns:
        The decorator.

    Example:
        >>> import unittest
        >>> class T(unittest.TestCase):
        ...     test_targets = {'mean'}
        ...     @skip_not_in_test_target('log_prob')
        ...     def test_log_prob(self):
        ...         raise AssertionError('not run')
        >>> result = unittest.TestResult()
        >>> _ = T('test_log_prob').run(result)
        >>> len(result.skipped), len(result.failures)
        (1, 0)
    """
    def decorator(f: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(f)
        def new_f(self: Any, *args: Any, **kwargs: Any) -> Any:
            if test_target not in self.test_targets:
                self.skipTest('%r does not exist in test_targets.' % test_target)
            return f(self, *args, **kwargs)
        return new_f
    return decorator
