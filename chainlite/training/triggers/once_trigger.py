"""A trigger firing once, at the first update (and optionally again after a resume)."""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chainlite.training.trainer import Trainer


class OnceTrigger:
    """Fires at its first call only; with ``call_on_resume``, also at the first call after
    the trainer is loaded from a snapshot.

    Args:
        call_on_resume: Whether to fire again after a resume.

    Attributes:
        finished (bool): True when the trigger will not fire again.

    Example:
        >>> from chainlite.training import triggers
        >>> trigger = triggers.OnceTrigger()
        >>> [trigger(None) for _ in range(3)], trigger.finished
        ([True, False, False], True)
    """

    def __init__(self, call_on_resume: bool = False) -> None:
        self._flag_first = True
        self._flag_resumed = call_on_resume

    @property
    def finished(self) -> bool:
        """True when the trigger will not fire again."""
        return not (self._flag_first or self._flag_resumed)

    def __call__(self, trainer: Trainer) -> bool:
        """Whether the extension should run (the trainer is not looked at).

        Args:
            trainer: The trainer.

        Returns:
            True at the first call (and the first after a resume with ``call_on_resume``).
        """
        fire = not self.finished
        self._flag_first = False
        self._flag_resumed = False
        return fire

    def serialize(self, serializer: Any) -> None:
        """Saves or loads whether the trigger has fired (``_flag_first``)."""
        try:
            self._flag_first = serializer('_flag_first', self._flag_first)
        except KeyError:
            warnings.warn('OnceTrigger: the flag is not in the snapshot; the trigger assumes '
                          'it has already fired.')
            self._flag_first = False
