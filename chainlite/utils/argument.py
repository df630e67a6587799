"""Keyword-argument helpers, as ``chainer.utils.argument``.

Functions that accept ``**kwargs`` for arguments that are optional (or that were removed)
use these to pick their values and to reject unknown names with a clear error.
"""
from __future__ import annotations

import inspect



def check_unexpected_kwargs(kwargs: dict, **unexpected: str) -> None:
    """Raises ValueError if ``kwargs`` holds one of the names in ``unexpected``.

    Args:
        kwargs: The keyword arguments a function received.
        **unexpected: Maps each name that is no longer accepted to the message to raise.

    Raises:
        ValueError: With the message of the first such name found.

    Example:
        >>> from chainlite.utils import argument
        >>> argument.check_unexpected_kwargs({'train': True}, train='use config.train')
        Traceback (most recent call last):
        ...
        ValueError: use config.train
    """
    for name, message in unexpected.items():
        if name in kwargs:
            raise ValueError(message)


def parse_kwargs(kwargs: dict, *name_and_values: tuple, **unexpected: str) -> tuple:
    """Takes the named values out of ``kwargs`` and rejects anything left over.

    Args:
        kwargs: The keyword arguments a function received; the parsed names are removed.
        *name_and_values: ``(name, default)`` pairs, in the order of the returned values.
        **unexpected: Names that raise ValueError with the given message
            (see :func:`check_unexpected_kwargs`).

    Returns:
        A tuple with the value of each name (its default where absent).

    Raises:
        ValueError: For a name listed in ``unexpected``.
        TypeError: For any other name left in ``kwargs``; the message names the caller.

    Example:
        >>> from chainlite.utils import argument
        >>> argument.parse_kwargs({'ratio': .3}, ('ratio', .5), ('mask', None))
        (0.3, None)
    """
    values = tuple(kwargs.pop(name, default) for name, default in name_and_values)
    if kwargs:
        check_unexpected_kwargs(kwargs, **unexpected)
        caller = inspect.stack()[1].function
        raise TypeError('%s() got unexpected keyword argument(s) %s' % (
            caller, ', '.join(repr(k) for k in sorted(kwargs))))
    return values


def assert_kwargs_empty(kwargs: dict) -> None:
    """Raises TypeError if ``kwargs`` is not empty.

    Args:
        kwargs: The keyword arguments a function received.

    Raises:
        TypeError: Naming the unexpected arguments.

    Example:
        >>> from chainlite.utils import argument
        >>> argument.assert_kwargs_empty({})
    """
    if kwargs:
        caller = inspect.stack()[1].function
        raise TypeError('%s() got unexpected keyword argument(s) %s' % (
            caller, ', '.join(repr(k) for k in sorted(kwargs))))


