"""A trigger firing at given iterations or epochs."""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Sequence, Union, cast

if TYPE_CHECKING:
    from chainlite.training.trainer import Trainer


class ManualScheduleTrigger:
    """Fires when the iteration count or ``epoch_detail`` reaches one of the given points.

    It fires on the first update at or after each point (``previous < point <= current``),
    so fractional epoch points work with any batch size.

    Args:
        points: A point or a list (or tuple) of points; integers for ``'iteration'``.
        unit: ``'iteration'`` or ``'epoch'``.

    Attributes:
        finished (bool): True once the last point has fired: the trigger will never fire
            again (the trainer then skips the extension's ``initialize`` on resume).

    Raises:
        ValueError: If ``unit`` is neither ``'iteration'`` nor ``'epoch'``.

    Example:
        >>> from types import SimpleNamespace
        >>> from chainlite.training import triggers
        >>> trigger = triggers.ManualScheduleTrigger([2, 5], 'iteration')
        >>> trainer = SimpleNamespace(updater=SimpleNamespace(iteration=0, epoch_detail=0.))
        >>> fired = []
        >>> for i in range(1, 7):
        ...     trainer.updater.iteration = i
        ...     if trigger(trainer):
        ...         fired.append(i)
        >>> fired, trigger.finished
        ([2, 5], True)
    """

    def __init__(self, points: Union[float, Sequence[float]], unit: str) -> None:
        if unit not in ('epoch', 'iteration'):
            raise ValueError("ManualScheduleTrigger: unit must be either 'epoch' or "
                             "'iteration', got %r" % (unit,))
        self.points: list[float] = (list(points) if isinstance(points, (list, tuple))
                                    else [cast(float, points)])
        self.unit: str = unit
        self.finished: bool = False
        self._finished_unknown = False
        # Negative values mean "unknown" (loaded from a snapshot that lacks them).
        self._previous_iteration: int = 0
        self._previous_epoch_detail: float = 0.

    def __call__(self, trainer: Trainer) -> bool:
        """Whether the extension should run after the current update.

        Args:
            trainer: The trainer; its ``updater`` gives ``iteration`` and ``epoch_detail``.

        Returns:
            True if a point was reached since the previous call.
        """
        updater = trainer.updater
        if self.unit == 'epoch':
            current = updater.epoch_detail
            previous = self._previous_epoch_detail
            if previous < 0:
                # None only before the first update: nothing has been crossed yet.
                known = updater.previous_epoch_detail
                previous = current if known is None else known
        else:
            current = updater.iteration
            previous = self._previous_iteration
            if previous < 0:
                previous = current - 1
        fire = any(previous < p <= current for p in self.points)
        past_last = current >= max(self.points)
        if (fire or self._finished_unknown) and past_last:
            self.finished = True
        self._finished_unknown = False

        self._previous_iteration = updater.iteration
        if hasattr(updater, 'epoch_detail'):
            self._previous_epoch_detail = updater.epoch_detail
        return fire

    def serialize(self, serializer: Any) -> None:
        """Saves or loads ``previous_iteration``, ``previous_epoch_detail`` and ``finished``.

        A snapshot without them warns; the trigger then guesses them from the updater.
        """
        try:
            self._previous_iteration = serializer('previous_iteration',
                                                  self._previous_iteration)
        except KeyError:
            warnings.warn('ManualScheduleTrigger: the previous iteration is not in the '
                          'snapshot; it is guessed from the current one, which is only right '
                          'if the trigger is called at every iteration.')
            self._previous_iteration = -1
        try:
            self._previous_epoch_detail = serializer('previous_epoch_detail',
                                                     self._previous_epoch_detail)
        except KeyError:
            warnings.warn('ManualScheduleTrigger: the previous epoch_detail is not in the '
                          'snapshot; updater.previous_epoch_detail is used, which is only '
                          'right if the trigger is called at every iteration.')
            self._previous_epoch_detail = -1.
        try:
            self.finished = serializer('finished', self.finished)
        except KeyError:
            warnings.warn('ManualScheduleTrigger: the finished flag is not in the snapshot; '
                          'it is set to False (so extensions are initialized) and worked out '
                          'again at the next call.')
            self.finished = False
            self._finished_unknown = True
