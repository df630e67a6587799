"""Trainer triggers: callables of the trainer deciding when an extension runs (or training
stops).

:func:`get_trigger` turns what users write (``(1, 'epoch')``, None, a callable) into one.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Union

from chainlite.training.triggers.early_stopping_trigger import EarlyStoppingTrigger  # noqa: F401
from chainlite.training.triggers.interval_trigger import IntervalTrigger
from chainlite.training.triggers.manual_schedule_trigger import ManualScheduleTrigger  # noqa: F401
from chainlite.training.triggers.minmax_value_trigger import BestValueTrigger  # noqa: F401
from chainlite.training.triggers.minmax_value_trigger import MaxValueTrigger  # noqa: F401
from chainlite.training.triggers.minmax_value_trigger import MinValueTrigger  # noqa: F401
from chainlite.training.triggers.once_trigger import OnceTrigger  # noqa: F401
from chainlite.training.triggers.time_trigger import TimeTrigger  # noqa: F401

if TYPE_CHECKING:
    from chainlite.training.trainer import Trainer

Trigger = Callable[['Trainer'], bool]
"""A trigger: a callable of the trainer returning whether to fire (or, as a stop trigger,
whether to stop)."""

TriggerSpec = Union[tuple[float, str], Trigger, None]
"""What :func:`get_trigger` (so ``Trainer``, ``Trainer.extend`` and the extensions taking a
``trigger``) accepts: a ``(period, unit)`` pair such as ``(1, 'epoch')``, a :data:`Trigger`,
or None."""


def _never_fire_trigger(trainer: Any) -> bool:
    return False


def get_trigger(trigger: TriggerSpec, *, what: str = 'get_trigger') -> Trigger:
    """Returns a trigger object from what users write.

    Args:
        trigger: A callable (returned as it is), None (a trigger that never fires), or a
            ``(period, unit)`` tuple for :class:`IntervalTrigger`.
        what: Names the argument in error messages (``'Trainer: stop_trigger'``, say).

    Returns:
        A callable taking the trainer and returning a bool.

    Raises:
        TypeError: If ``trigger`` is none of these (a bare ``'epoch'``, say).
        ValueError: If the period is not a positive number or the unit is unknown.

    Example:
        >>> from chainlite import training
        >>> print(training.get_trigger((2, 'epoch')))
        IntervalTrigger(2, 'epoch')
        >>> training.get_trigger(None)(trainer=None)
        False
    """
    if callable(trigger):
        return trigger
    if trigger is None:
        return _never_fire_trigger
    if isinstance(trigger, (str, bytes)) or not hasattr(trigger, '__len__') or len(trigger) != 2:
        raise TypeError("%s: a trigger is a callable, None or a (period, unit) pair such as "
                        "(1, 'epoch'), got %r" % (what, trigger))
    try:
        return IntervalTrigger(*trigger)
    except (TypeError, ValueError) as e:
        raise type(e)('%s: %s (the trigger %r)' % (what, e, tuple(trigger))) from None
