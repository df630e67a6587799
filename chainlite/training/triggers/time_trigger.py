"""A trigger firing every ``period`` seconds of training time."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chainlite.training.trainer import Trainer


class TimeTrigger:
    """Fires at the first update after each ``period`` seconds of ``trainer.elapsed_time``.

    It fires at most once per call: after a long pause it catches up one period per update.

    Args:
        period: The interval in seconds.

    Example:
        >>> from types import SimpleNamespace
        >>> from chainlite.training import triggers
        >>> trigger = triggers.TimeTrigger(10.)
        >>> [trigger(SimpleNamespace(elapsed_time=t)) for t in (5., 10.5, 15., 21.)]
        [False, True, False, True]
    """

    def __init__(self, period: float) -> None:
        self._period = period
        self._next_time = period

    def __call__(self, trainer: Trainer) -> bool:
        """Whether the extension should run.

        Args:
            trainer: The trainer; its ``elapsed_time`` is read.

        Returns:
            True if the elapsed time passed the next multiple of ``period``.
        """
        if self._next_time < trainer.elapsed_time:
            self._next_time += self._period
            return True
        return False

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the time of the next firing (``next_time``)."""
        self._next_time = serializer('next_time', self._next_time)
