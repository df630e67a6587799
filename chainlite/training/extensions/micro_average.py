"""MicroAverage: a ratio of sums over an interval (e.g. accuracy over a whole epoch)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chainlite import reporter
from chainlite import variable
from chainlite.training import extension
from chainlite.training import triggers

if TYPE_CHECKING:
    from chainlite.training.trainer import Trainer
    from chainlite.training.triggers import TriggerSpec


class MicroAverage(extension.Extension):
    """Reports ``sum(numerators) / sum(denominators)`` over each interval.

    With per-batch counts (correct predictions and examples), this is the accuracy over all
    examples of the interval (the micro-average), which differs from the mean of the batch
    accuracies (the macro-average) when batches differ in size. Iterations whose observation
    lacks either key are skipped; reported Variables count by their arrays.

    Args:
        numerator_key: The observation key of the numerator (e.g. ``'main/correct'``).
        denominator_key: The observation key of the denominator (e.g. ``'main/total'``).
        result_key: The key the ratio is reported under (e.g. ``'main/accuracy'``).
        trigger: When to report the ratio and restart the sums: a trigger or
            ``(period, unit)``.

    Example:
        >>> from types import SimpleNamespace
        >>> import chainlite
        >>> from chainlite.training import extensions
        >>> ext = extensions.MicroAverage('main/correct', 'main/total', 'main/accuracy',
        ...                               trigger=(2, 'iteration'))
        >>> trainer = SimpleNamespace(updater=SimpleNamespace(iteration=0, epoch_detail=0.))
        >>> observation = {}
        >>> with chainlite.Reporter().scope(observation):
        ...     for i, (correct, total) in enumerate([(9, 10), (1, 2)], 1):
        ...         trainer.updater.iteration = i
        ...         trainer.observation = {'main/correct': correct, 'main/total': total}
        ...         ext(trainer)
        >>> observation['main/accuracy']  # (9 + 1) / (10 + 2), not (0.9 + 0.5) / 2
        0.8333333333333334
    """

    priority = extension.PRIORITY_EDITOR

    def __init__(self, numerator_key: str, denominator_key: str, result_key: str,
                 trigger: TriggerSpec = (1, 'epoch')) -> None:
        self._trigger = triggers.get_trigger(trigger)
        self._numerator_key = numerator_key
        self._denominator_key = denominator_key
        self._result_key = result_key
        self._numerator: Any = 0
        self._denominator: Any = 0

    def __call__(self, trainer: Trainer) -> None:
        """Adds the current counts; reports the ratio when the trigger fires."""
        observation = trainer.observation
        if not (self._numerator_key in observation and self._denominator_key in observation):
            return
        self._numerator += _as_array(observation[self._numerator_key])
        self._denominator += _as_array(observation[self._denominator_key])
        if self._trigger(trainer):
            result = float(self._numerator) / float(self._denominator)
            self._numerator = 0
            self._denominator = 0
            reporter.report({self._result_key: result})

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the running sums."""
        self._numerator = serializer('_numerator', self._numerator)
        self._denominator = serializer('_denominator', self._denominator)


def _as_array(value: Any) -> Any:
    return value.array if isinstance(value, variable.Variable) else value
