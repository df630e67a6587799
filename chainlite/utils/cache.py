"""Caching of computed attributes, as ``chainer.utils.cache``."""
from __future__ import annotations

import functools
from typing import Any, Callable, cast


class cached_property:
    """A read-only property computed once per backprop mode.

    The value is cached separately for ``config.enable_backprop`` True and False, so a
    value computed without a graph is not reused where one is needed.

    Args:
        func: The method that computes the value.

    Example:
        >>> from chainlite.utils.cache import cached_property
        >>> class C:
        ...     calls = 0
        ...     @cached_property
        ...     def y(self):
        ...         C.calls += 1
        ...         return 42
        >>> c = C()
        >>> c.y, c.y, C.calls
        (42, 42, 1)
    """

    __name__: str  # copied from the function by update_wrapper

    def __init__(self, func: Callable[[Any], Any]) -> None:
        # (typeshed types update_wrapper's first argument as a function; any object works)
        functools.update_wrapper(cast(Any, self), func)
        self.func = func

    def __get__(self, obj: Any, cls: Any) -> Any:
        if obj is None:
            return self
        from chainlite import configuration
        caches = obj.__dict__.setdefault(self.__name__, {})
        mode = configuration.config.enable_backprop
        if mode not in caches:
            caches[mode] = self.func(obj)
        return caches[mode]

    def __set__(self, obj: Any, value: Any) -> None:
        raise AttributeError('attribute %r of %s is read-only' % (self.__name__, type(obj)))
