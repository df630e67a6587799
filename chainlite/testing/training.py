"""A Trainer whose updater only counts, for testing extensions and triggers."""
from __future__ import annotations

from typing import Any, Iterable, Optional
from unittest import mock

from chainlite import training


def is_available() -> bool:
    """Returns True: the mock updater needs only :mod:`unittest.mock` (Chainer needed ``mock``)."""
    return True


def get_error() -> None:
    """Returns None: nothing this module needs can be missing (see :func:`is_available`)."""
    return None


def check_available() -> None:
    """Does nothing: this module is always available (see :func:`is_available`)."""


def get_trainer_with_mock_updater(stop_trigger: Any = (10, 'iteration'),
                                  iter_per_epoch: int = 10,
                                  extensions: Optional[Iterable[Any]] = None
                                  ) -> training.Trainer:
    """Returns a real :class:`~chainlite.training.Trainer` whose updater is a ``mock.Mock``.

    Each ``updater.update()`` calls ``updater.update_core()`` (a mock, so tests can count the
    calls) and advances ``iteration``, ``epoch``, ``epoch_detail``, ``previous_epoch_detail``
    and ``is_new_epoch`` as an updater running ``iter_per_epoch`` iterations per epoch would.
    The updater has no optimizers.

    Args:
        stop_trigger: The trainer's stop trigger.
        iter_per_epoch: The number of iterations in an epoch (it may be fractional:
            with 1.5, iterations 2 and 3 each start an epoch).
        extensions: Extensions to register.

    Returns:
        The trainer.

    Example:
        >>> trainer = get_trainer_with_mock_updater((2, 'epoch'), iter_per_epoch=5)
        >>> trainer.run()
        >>> trainer.updater.iteration, trainer.updater.epoch, trainer.updater.update_core.call_count
        (10, 2, 10)
    """
    updater = mock.Mock()
    updater.get_all_optimizers.return_value = {}
    updater.iteration = 0
    updater.epoch = 0
    updater.epoch_detail = 0.0
    updater.previous_epoch_detail = None
    updater.is_new_epoch = True  # as Chainer's mock updater starts

    def update() -> None:
        updater.update_core()
        updater.previous_epoch_detail = updater.epoch_detail
        updater.iteration += 1
        updater.epoch = updater.iteration // iter_per_epoch
        updater.epoch_detail = updater.iteration / iter_per_epoch
        # An epoch starts when the epoch count changes (iter_per_epoch may be fractional).
        updater.is_new_epoch = (updater.iteration - 1) // iter_per_epoch != updater.epoch

    updater.update = update
    return training.Trainer(updater, stop_trigger, extensions=extensions)
