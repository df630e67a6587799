"""Chainer's ``chainer.functions.util.forget``: :func:`~chainlite.functions.forget`.

chainlite keeps the function in :mod:`chainlite.functions.array.forget`; this module gives it,
its node ``Forget`` and the helper ``_call_func`` under Chainer's module name.
"""
from __future__ import annotations

from typing import Any, Callable

from chainlite.functions.array import forget as _forget
from chainlite.functions.array.forget import Forget as Forget  # noqa: F401
from chainlite.functions.array.forget import forget as forget  # noqa: F401


def _call_func(func: Callable[..., Any], xs: Any) -> Any:
    """Calls ``func(*xs)`` and returns what it returns, as Chainer's helper of this name.

    Raises:
        RuntimeError: ``func`` returned neither a Variable nor a tuple of Variables.
    """
    outs = func(*xs)
    _forget._call(lambda: outs, ())  # the check (and message) forget itself applies
    return outs
