"""Final methods: :func:`final` marks a method, :func:`enable_final` makes a base that enforces it.

As ``chainer.utils.final`` / ``enable_final``: a subclass that overrides a final method raises
(``TypeError`` by default) or warns when the class is created.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

_ACTION = '__chainlite_override_action'


def final(*args: Any, **kwargs: Any) -> Any:
    """Declares a method final; use as ``@final`` or ``@final(action=...)``.

    The class defining it must derive from a base returned by :func:`enable_final`.

    Args:
        action: What overriding the method does: an Exception class (raised when the
            overriding class is created) or a Warning class (warned). ``TypeError`` by
            default. Keyword only.

    Returns:
        The method itself (marked), or a decorator when called with ``action``.

    Example:
        >>> class Base(enable_final()):
        ...     @final
        ...     def run(self):
        ...         return 1
        >>> class Child(Base):
        ...     def run(self):
        ...         return 2
        Traceback (most recent call last):
        ...
        TypeError: method 'run' is final.
    """
    def mark(f: Callable[..., Any], action: type = TypeError) -> Callable[..., Any]:
        if not callable(f):
            raise TypeError('final applies to methods, got %r' % (f,))
        if not (isinstance(action, type) and issubclass(action, (Exception, Warning))):
            raise TypeError('final: action must be an Exception or Warning class, got %r'
                            % (action,))
        setattr(f, _ACTION, action)
        return f

    if len(args) == 1 and not kwargs:
        return mark(args[0])
    if args:
        raise TypeError('final takes a method, or the keyword argument action only')
    return lambda f: mark(f, **kwargs)


class _EnableFinal(type):
    """Metaclass that checks, at class creation, that no final method of a base is overridden."""

    def __new__(mcs, name: str, bases: tuple, namespace: dict) -> Any:
        for attr in namespace:
            for base in bases:
                action = getattr(getattr(base, attr, None), _ACTION, None)
                if action is None:
                    continue
                if issubclass(action, Warning):
                    warnings.warn('Overriding method %r.' % attr, action, stacklevel=2)
                else:
                    raise action('method %r is final.' % attr)
        return super().__new__(mcs, name, bases, namespace)


def enable_final(base: Any = (), meta_base: Any = ()) -> type:
    """Returns a base class whose subclasses may not override its :func:`final` methods.

    Args:
        base: A class or a tuple of classes the returned class derives from.
        meta_base: A metaclass or a tuple of metaclasses to combine with the checking one
            (needed when a subclass has a metaclass of its own).

    Returns:
        A new class to derive from.

    Example:
        >>> Base = enable_final()
        >>> isinstance(Base, type)
        True
    """
    bases = tuple(base) if isinstance(base, (list, tuple)) else (base,)
    metas = tuple(meta_base) if isinstance(meta_base, (list, tuple)) else (meta_base,)
    metaclass = type('base_metaclass', (_EnableFinal,) + metas, {})
    return metaclass('enable_final_base', bases, {'__module__': __name__})
