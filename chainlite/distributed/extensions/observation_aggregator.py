"""Combining an observed value over the ranks."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional

from chainlite import variable
from chainlite.training import extension
from chainlite.training import triggers

if TYPE_CHECKING:
    from chainlite.distributed.communicators.communicator_base import CommunicatorBase
    from chainlite.training.trainer import Trainer
    from chainlite.training.triggers import TriggerSpec


def _average_2d(histories: list) -> Any:
    values = [v for history in histories for v in history]
    return sum(values) / len(values)


class ObservationAggregator(extension.Extension):
    """Trainer extension that replaces an observation by its aggregate over every rank.

    Each iteration it records ``trainer.observation[original_key]``; when ``comm_trigger``
    fires, rank 0 gathers every rank's values recorded since the last time, applies
    ``aggregator`` and shares the result, which is stored under ``aggregated_key`` on all
    ranks.

    Args:
        comm: A communicator.
        original_key: The observation to aggregate (a Variable is read as its array).
        aggregated_key: Where the result goes; ``original_key`` if None.
        comm_trigger: When to communicate (default every iteration).
        aggregator: A function of the list (one per rank) of lists of values; the mean of
            all values by default.
    """

    trigger = 1, 'iteration'
    priority = extension.PRIORITY_EDITOR
    name = None

    def __init__(self, comm: CommunicatorBase, original_key: str,
                 aggregated_key: Optional[str] = None,
                 *, comm_trigger: TriggerSpec = (1, 'iteration'),
                 aggregator: Optional[Callable[..., Any]] = None) -> None:
        self.comm = comm
        self.original_key = original_key
        self.aggregated_key = original_key if aggregated_key is None else aggregated_key
        self.comm_trigger = triggers.get_trigger(comm_trigger)
        self.aggregator = aggregator or _average_2d
        self.observation_history: list = []

    def compute_summary(self, trainer: Trainer) -> Any:
        """Records this iteration's value; returns the aggregate when communicating, else None.
        """
        if self.original_key in trainer.observation:
            value = trainer.observation[self.original_key]
            if isinstance(value, variable.Variable):
                value = value.array
            self.observation_history.append(value)
        if not self.comm_trigger(trainer):
            return None
        gathered = self.comm.gather_obj(self.observation_history)
        self.observation_history = []
        summary = (self.aggregator(gathered) if self.comm.rank == 0 and gathered is not None
                   else None)
        return self.comm.bcast_obj(summary)

    def __call__(self, trainer: Trainer) -> None:
        """Stores the aggregate in ``trainer.observation`` when there is one."""
        summary = self.compute_summary(trainer)
        if summary is not None:
            trainer.observation[self.aggregated_key] = summary
