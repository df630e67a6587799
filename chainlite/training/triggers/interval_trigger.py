"""A trigger firing every ``period`` iterations or epochs."""
from __future__ import annotations

import numbers
import warnings
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chainlite.training.trainer import Trainer


class IntervalTrigger:
    """Fires each time the iteration count or ``epoch_detail`` crosses a multiple of ``period``.

    The trigger remembers the updater's ``iteration`` and ``epoch_detail`` from its previous
    call and fires when ``previous // period != current // period``. With epochs the period
    may be fractional (``0.5``: twice per epoch); it then fires on the first iteration at or
    after each multiple, whatever the batch size. It saves what it remembers in snapshots,
    so it fires at the same iterations after a resume.

    Args:
        period: The interval length; an integer for ``'iteration'``.
        unit: ``'iteration'`` (updates) or ``'epoch'`` (sweeps over the data set).

    Raises:
        TypeError: If ``period`` is not a number.
        ValueError: If ``unit`` is neither, or ``period`` is not positive.

    Example:
        >>> from types import SimpleNamespace
        >>> from chainlite.training import triggers
        >>> trigger = triggers.IntervalTrigger(3, 'iteration')
        >>> trainer = SimpleNamespace(updater=SimpleNamespace(iteration=0, epoch_detail=0.))
        >>> fired = []
        >>> for i in range(1, 8):
        ...     trainer.updater.iteration = i
        ...     fired.append(trigger(trainer))
        >>> [i for i, f in zip(range(1, 8), fired) if f]
        [3, 6]
    """

    def __init__(self, period: float, unit: str) -> None:
        if unit not in ('epoch', 'iteration'):
            raise ValueError("IntervalTrigger: unit must be either 'epoch' or 'iteration', "
                             'got %r' % (unit,))
        if isinstance(period, bool) or not isinstance(period, numbers.Real):
            raise TypeError('IntervalTrigger: period must be a number of %ss, got %r'
                            % (unit, period))
        if not period > 0:
            raise ValueError('IntervalTrigger: period must be positive, got %r %ss'
                             % (period, unit))
        self.period: float = period
        self.unit: str = unit
        # Negative values mean "unknown" (loaded from a snapshot that lacks them).
        self._previous_iteration: int = 0
        self._previous_epoch_detail: float = 0.
        self.count: float = 0  # epoch_detail // period, kept for Chainer compatibility

    def __call__(self, trainer: Trainer) -> bool:
        """Whether the extension should run after the current update.

        Args:
            trainer: The trainer; its ``updater`` gives ``iteration`` and ``epoch_detail``.

        Returns:
            True if a multiple of ``period`` was reached since the previous call.
        """
        updater = trainer.updater
        if self.unit == 'epoch':
            current = updater.epoch_detail
            previous = self._previous_epoch_detail
            if previous < 0:
                # None only before the first update: nothing has been crossed yet.
                known = updater.previous_epoch_detail
                previous = current if known is None else known
            self.count = current // self.period
        else:
            current = updater.iteration
            previous = self._previous_iteration
            if previous < 0:
                previous = current - 1
        fire = previous // self.period != current // self.period

        self._previous_iteration = updater.iteration
        if hasattr(updater, 'epoch_detail'):
            self._previous_epoch_detail = updater.epoch_detail
        return fire

    def serialize(self, serializer: Any) -> None:
        """Saves or loads ``previous_iteration`` and ``previous_epoch_detail``.

        A snapshot without them warns; the trigger then guesses them from the updater.
        """
        try:
            self._previous_iteration = serializer('previous_iteration',
                                                  self._previous_iteration)
        except KeyError:
            warnings.warn('IntervalTrigger: the previous iteration is not in the snapshot; it '
                          'is guessed from the current one, which is only right if the trigger '
                          'is called at every iteration.')
            self._previous_iteration = -1
        try:
            self._previous_epoch_detail = serializer('previous_epoch_detail',
                                                     self._previous_epoch_detail)
        except KeyError:
            warnings.warn('IntervalTrigger: the previous epoch_detail is not in the snapshot; '
                          'updater.previous_epoch_detail is used, which is only right if the '
                          'trigger is called at every iteration.')
            self._previous_epoch_detail = -1.

    def get_training_length(self) -> tuple[float, str]:
        """``(period, unit)``: how long training lasts when this is the stop trigger."""
        return self.period, self.unit

    def __str__(self) -> str:
        return "%s(%s, '%s')" % (type(self).__name__, self.period, self.unit)
