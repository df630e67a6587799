"""unchain_variables: frees the graphs kept by reported Variables."""
from __future__ import annotations

from typing import TYPE_CHECKING

from chainlite import configuration
from chainlite import variable
from chainlite.training import extension

if TYPE_CHECKING:
    from chainlite.training.trainer import Trainer


class unchain_variables(extension.Extension):
    """Unchains the graph of every Variable in the trainer's observation, after the other
    extensions ran.

    Reported Variables only keep their graph when ``chainlite.config.keep_graph_on_report``
    is True; this extension then releases those graphs once all other extensions (priority
    0, the lowest of the built-in ones but snapshots) had their chance to use them. Its
    trigger is a method: it fires at the iterations after which the flag was True.

    Example:
        >>> from types import SimpleNamespace
        >>> import numpy as np
        >>> import chainlite
        >>> import chainlite.functions as F
        >>> from chainlite.training import extensions
        >>> x = chainlite.Variable(np.ones(2, np.float32))
        >>> loss = F.sum(x * 2)
        >>> trainer = SimpleNamespace(observation={'main/loss': loss})
        >>> ext = extensions.unchain_variables()
        >>> loss.creator is None
        False
        >>> ext(trainer)
        >>> loss.creator is None
        True
    """

    priority = 0

    def __init__(self) -> None:
        self._prev_flag = None

    def initialize(self, trainer: Trainer) -> None:
        """Remembers ``keep_graph_on_report`` at the start of training."""
        self._prev_flag = configuration.config.keep_graph_on_report

    def trigger(self, trainer: Trainer) -> bool:
        """Whether ``keep_graph_on_report`` was True during the iteration just done."""
        flag = self._prev_flag
        self._prev_flag = configuration.config.keep_graph_on_report
        return bool(flag)

    def __call__(self, trainer: Trainer) -> None:
        """Unchains the Variables of the observation from their graphs."""
        for value in trainer.observation.values():
            if isinstance(value, variable.Variable):
                value.unchain_backward()
