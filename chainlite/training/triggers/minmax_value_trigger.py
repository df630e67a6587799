"""Triggers firing when a reported value reaches a new best (minimum, maximum...)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from chainlite import reporter
from chainlite.training import triggers

if TYPE_CHECKING:
    from chainlite.training.trainer import Trainer


class BestValueTrigger:
    """Fires when the mean of a reported value over an interval is the best so far.

    At every call it accumulates ``trainer.observation[key]``; when ``trigger`` fires it
    compares the mean over the interval with the best mean seen, and fires if it is better
    (always the first time).

    Args:
        key: The observation key, e.g. ``'validation/main/loss'``.
        compare: ``compare(best, new)`` returns True if ``new`` is better than ``best``.
        trigger: When to compare: a trigger or a ``(period, unit)`` tuple.

    Example:
        >>> from types import SimpleNamespace
        >>> from chainlite.training import triggers

if TYPE_CHECKING:
    from chainlite.training.trainer import Trainer
        >>> trigger = triggers.BestValueTrigger(
        ...     'loss', lambda best, new: new < best, trigger=(1, 'iteration'))
        >>> trainer = SimpleNamespace(updater=SimpleNamespace(iteration=0, epoch_detail=0.))
        >>> fired = []
        >>> for i, loss in enumerate([3., 2., 2.5, 1.], start=1):
        ...     trainer.updater.iteration = i
        ...     trainer.observation = {'loss': loss}
        ...     fired.append(trigger(trainer))
        >>> fired
        [True, True, False, True]
    """

    def __init__(self, key: str, compare: Callable[[Any, Any], bool],
                 trigger: triggers.TriggerSpec = (1, 'epoch')) -> None:
        self._key = key
        self._best_value: float | None = None
        self._interval_trigger = triggers.get_trigger(trigger)
        self._summary = reporter.DictSummary()
        self._compare = compare

    def __call__(self, trainer: Trainer) -> bool:
        """Whether the extension should run after the current update.

        Args:
            trainer: The trainer; its ``observation`` holds the value.

        Returns:
            True at the end of an interval whose mean is the best so far.

        Raises:
            KeyError: If no value of ``key`` was reported during the interval.
        """
        key = self._key
        if key in trainer.observation:
            self._summary.add({key: trainer.observation[key]})
        if not self._interval_trigger(trainer):
            return False
        means = self._summary.compute_mean()
        if key not in means:
            raise KeyError('%s: %r was not reported during the interval; the observation '
                           'holds %s' % (type(self).__name__, key,
                                         sorted(trainer.observation)))
        value = float(means[key])
        self._summary = reporter.DictSummary()
        if self._best_value is None or self._compare(self._best_value, value):
            self._best_value = value
            return True
        return False

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the interval trigger, the running summary and the best value."""
        if hasattr(self._interval_trigger, 'serialize'):
            self._interval_trigger.serialize(serializer['interval_trigger'])
        self._summary.serialize(serializer['summary'])
        self._best_value = serializer('best_value', self._best_value)


class MaxValueTrigger(BestValueTrigger):
    """Fires when the mean of a reported value over an interval is the largest so far.

    Args:
        key: The observation key, e.g. ``'validation/main/accuracy'``.
        trigger: When to compare: a trigger or a ``(period, unit)`` tuple.

    Example:
        >>> from chainlite.training import triggers

if TYPE_CHECKING:
    from chainlite.training.trainer import Trainer
        >>> trigger = triggers.MaxValueTrigger('validation/main/accuracy')
        >>> trigger._compare(0.5, 0.7)
        True
    """

    def __init__(self, key: str, trigger: triggers.TriggerSpec = (1, 'epoch')) -> None:
        super().__init__(key, lambda best, new: new > best, trigger)


class MinValueTrigger(BestValueTrigger):
    """Fires when the mean of a reported value over an interval is the smallest so far.

    Args:
        key: The observation key, e.g. ``'validation/main/loss'``.
        trigger: When to compare: a trigger or a ``(period, unit)`` tuple.

    Example:
        >>> from chainlite.training import triggers

if TYPE_CHECKING:
    from chainlite.training.trainer import Trainer
        >>> trigger = triggers.MinValueTrigger('validation/main/loss')
        >>> trigger._compare(0.5, 0.7)
        False
    """

    def __init__(self, key: str, trigger: triggers.TriggerSpec = (1, 'epoch')) -> None:
        super().__init__(key, lambda best, new: new < best, trigger)
