"""Trainer extensions: what runs after an update when its trigger fires.

An extension is any callable taking the trainer. The :class:`Extension` base class and the
:func:`make_extension` decorator give it defaults the trainer reads when it is registered:
``trigger`` (when to call it), ``priority`` (in which order, highest first), ``default_name``,
and the optional ``initialize`` / ``on_error`` / ``finalize`` hooks.
"""
from __future__ import annotations

import sys

from typing import TYPE_CHECKING, Any, Callable, Optional, TypeVar

if TYPE_CHECKING:
    from chainlite.training.trainer import Trainer
    from chainlite.training.triggers import TriggerSpec

_F = TypeVar('_F', bound=Callable[..., Any])

PRIORITY_WRITER = 300
"""Priority of extensions that write values to the trainer's observation (e.g. evaluators)."""
PRIORITY_EDITOR = 200
"""Priority of extensions that edit values already in the observation."""
PRIORITY_READER = 100
"""Priority of extensions that only read the observation (logs, prints, snapshots)."""


def note_missing_once(noted: set, extension_name: str, message: str) -> None:
    """Prints ``message % extension_name`` to standard error, once per name in ``noted``.

    For an extension whose optional package is not installed: a note rather than a warning,
    since a missing optional output is not a fault of the script, and a warning would turn
    into a crash under ``python -W error``.
    """
    if extension_name not in noted:
        noted.add(extension_name)
        print(message % extension_name, file=sys.stderr)


def _reject_kwargs(where: str, kwargs: dict[str, Any]) -> None:
    # Chainer 1's invoke_before_training became Extension.initialize in Chainer 2.
    if 'invoke_before_training' in kwargs:
        raise ValueError('invoke_before_training has been removed since Chainer v2.0.0. '
                         'Use initializer= instead.')
    if kwargs:
        raise TypeError('%s() got unexpected keyword argument(s) %s'
                        % (where, ', '.join(repr(k) for k in sorted(kwargs))))


class Extension:
    """Base class of trainer extensions.

    Subclasses implement :meth:`__call__`; the class attributes are the defaults
    :meth:`Trainer.extend <chainlite.training.Trainer.extend>` uses when it is not told
    otherwise. A plain function can be made an extension with :func:`make_extension`, and any
    callable works if the arguments of ``extend`` are given.

    Attributes:
        trigger: The default trigger, ``(1, 'iteration')``.
        priority: The default priority, :data:`PRIORITY_READER`.
        name: The name the trainer registered it under (None before ``extend``).

    Example:
        >>> from chainlite import training
        >>> class CountCalls(training.Extension):
        ...     trigger = 2, 'iteration'
        ...     def __init__(self):
        ...         self.calls = 0
        ...     def __call__(self, trainer):
        ...         self.calls += 1
        >>> ext = CountCalls()
        >>> ext.default_name, ext.priority == training.PRIORITY_READER
        ('CountCalls', True)
    """

    trigger: TriggerSpec = 1, 'iteration'
    priority: int = PRIORITY_READER
    name: Optional[str] = None

    @property
    def default_name(self) -> str:
        """The name used when none is given to ``extend``: the class name by default."""
        return type(self).__name__

    def __call__(self, trainer: Trainer) -> None:
        """Runs the extension; called after the updates on which its trigger fires.

        Args:
            trainer: The trainer running the loop.
        """
        raise NotImplementedError('%s must override Extension.__call__' % type(self).__name__)

    def initialize(self, trainer: Trainer) -> None:
        """Called once before the training loop starts (also after resuming from a snapshot).

        Extensions that set trainer state (e.g. a learning-rate schedule) restore it here.

        Args:
            trainer: The trainer about to run.
        """

    def on_error(self, trainer: Trainer, exc: BaseException, tb: Any) -> None:
        """Called when the training loop raises, before :meth:`finalize`.

        Args:
            trainer: The trainer whose loop failed.
            exc: The exception.
            tb: Its traceback.
        """

    def finalize(self) -> None:
        """Called when the training loop ends, normally or by an exception."""

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the extension's state (nothing by default).

        Args:
            serializer: A serializer or deserializer, scoped to this extension.
        """


def make_extension(trigger: TriggerSpec = None, default_name: Optional[str] = None,
                   priority: Optional[int] = None, finalizer: Optional[Callable[[], Any]] = None,
                   initializer: Optional[Callable[[Trainer], Any]] = None,
                   on_error: Optional[Callable[[Trainer, BaseException, Any], Any]] = None,
                   **kwargs: Any) -> Callable[[_F], _F]:
    """Decorator turning a function of the trainer into an extension.

    It only sets attributes on the function: ``trigger``, ``default_name``, ``priority``,
    ``initialize``, ``on_error`` and ``finalize``.

    Args:
        trigger: The default trigger; ``(1, 'iteration')`` if None.
        default_name: The default name; the function's ``__name__`` if None.
        priority: The default priority; :data:`PRIORITY_READER` if None.
        finalizer: Called with no argument when the training loop ends.
        initializer: Called with the trainer before the loop starts.
        on_error: Called with ``(trainer, exc, tb)`` when the loop raises.

    Returns:
        The decorator.

    Raises:
        ValueError: For the removed ``invoke_before_training`` argument.
        TypeError: For any other unexpected keyword argument.

    Example:
        >>> from chainlite import training
        >>> @training.make_extension(trigger=(1, 'epoch'))
        ... def print_epoch(trainer):
        ...     print(trainer.updater.epoch)
        >>> print_epoch.trigger, print_epoch.default_name
        ((1, 'epoch'), 'print_epoch')
    """
    _reject_kwargs('make_extension', kwargs)
    if trigger is None:
        trigger = Extension.trigger
    if priority is None:
        priority = Extension.priority

    def decorator(function: _F) -> _F:
        ext: Any = function
        ext.trigger = trigger
        ext.default_name = default_name or ext.__name__
        ext.priority = priority
        ext.finalize = finalizer
        ext.on_error = on_error
        ext.initialize = initializer
        return function

    return decorator
