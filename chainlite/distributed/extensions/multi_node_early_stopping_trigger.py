"""Early stopping that every rank decides alike."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from chainlite.distributed.extensions import observation_aggregator
from chainlite.training.triggers import early_stopping_trigger

if TYPE_CHECKING:
    from chainlite.distributed.communicators.communicator_base import CommunicatorBase
    from chainlite.training.trainer import Trainer
    from chainlite.training.triggers import TriggerSpec


class MultiNodeEarlyStoppingTrigger:
    """An :class:`~chainlite.training.triggers.EarlyStoppingTrigger` on the mean over ranks.

    At each check the monitored value is averaged over all ranks (an
    :class:`ObservationAggregator` stores it as ``monitor + suffix``), so every rank sees the
    same value and all stop at the same iteration.

    Args:
        comm: A communicator.
        check_trigger: How often to compare (``(n, 'epoch')`` or ``(n, 'iteration')``).
        monitor: The observation to watch.
        patience: How many checks without improvement before stopping (``patients`` is
            accepted as an alias).
        mode: ``'max'``, ``'min'`` or ``'auto'``.
        verbose: Print when stopping.
        max_trigger: The longest training.
        suffix: Appended to ``monitor`` for the aggregated key.
        kwargs: ``patients``.
    """

    def __init__(self, comm: CommunicatorBase, *, check_trigger: TriggerSpec = (1, 'epoch'),
                 monitor: str = 'main/loss', patience: Optional[int] = None,
                 mode: str = 'auto', verbose: bool = False,
                 max_trigger: TriggerSpec = (100, 'epoch'),
                 suffix: str = '_aggregated', **kwargs: Any) -> None:
        aggregated = monitor + suffix
        self.actual_trigger = early_stopping_trigger.EarlyStoppingTrigger(
            check_trigger=check_trigger, monitor=aggregated, patience=patience, mode=mode,
            verbose=verbose, max_trigger=max_trigger, **kwargs)
        self.aggregator = observation_aggregator.ObservationAggregator(
            comm, monitor, aggregated_key=aggregated, comm_trigger=check_trigger)

    def __call__(self, trainer: Trainer) -> bool:
        """Aggregates the monitored value, then asks the early-stopping trigger."""
        self.aggregator(trainer)
        return self.actual_trigger(trainer)

    def get_training_length(self) -> tuple:
        """The ``max_trigger`` length (for progress displays)."""
        return self.actual_trigger.get_training_length()

    def serialize(self, serializer: Any) -> None:
        """Serializes the early-stopping state."""
        serialize = getattr(self.actual_trigger, 'serialize', None)
        if serialize is not None:
            serialize(serializer)
