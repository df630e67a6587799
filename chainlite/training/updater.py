"""The interface between the trainer and what one training iteration does."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chainlite.optimizer import Optimizer
    from chainlite.training.trainer import Trainer


class Updater:
    """Base class of updaters: one call of :meth:`update` is one training iteration.

    An updater typically takes a minibatch from an iterator, computes the loss, and lets
    an optimizer update the parameters. The trainer (and its triggers) read ``iteration``,
    ``epoch``, ``epoch_detail``, ``previous_epoch_detail`` and ``is_new_epoch`` from it;
    :class:`~chainlite.training.updaters.StandardUpdater` is the usual implementation.

    Example:
        >>> from chainlite import training
        >>> class Counter(training.Updater):
        ...     iteration = 0
        ...     def update(self):
        ...         self.iteration += 1
        >>> u = Counter()
        >>> u.update()
        >>> u.iteration
        1
    """

    iteration: int
    """The number of updates done so far (the trainer and its triggers read it)."""

    if TYPE_CHECKING:
        # The rest of what the trainer and its triggers read, declared for type checkers
        # only: subclasses provide them as properties or attributes.
        @property
        def epoch(self) -> int:
            """The number of completed sweeps over the training data."""

        @property
        def epoch_detail(self) -> float:
            """The epoch as a float (fractions within the current sweep)."""

        @property
        def previous_epoch_detail(self) -> float | None:
            """``epoch_detail`` before the last update (None before the first)."""

        @property
        def is_new_epoch(self) -> bool:
            """Whether the last update completed a sweep."""

    def connect_trainer(self, trainer: Trainer) -> None:
        """Called at the end of ``Trainer.__init__`` (nothing by default).

        An updater can register extra observers with ``trainer.reporter`` here.

        Args:
            trainer: The trainer this updater belongs to.
        """

    def finalize(self) -> None:
        """Called when the training loop ends: finalizes the iterators."""
        raise NotImplementedError

    def get_optimizer(self, name: str) -> Optimizer:
        """Returns the optimizer registered under ``name``."""
        raise NotImplementedError

    def get_all_optimizers(self) -> dict[str, Optimizer]:
        """Returns a dictionary of all the optimizers, by name."""
        raise NotImplementedError

    def update(self) -> None:
        """Runs one training iteration (loading data, forward, backward, update)."""
        raise NotImplementedError

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the updater's state."""
        raise NotImplementedError


def __getattr__(name: str) -> Any:
    # Chainer's old chainer.training.updater also offered the two updaters; they import this
    # module, so they are imported on first use.
    if name == 'StandardUpdater':
        from chainlite.training.updaters.standard_updater import StandardUpdater
        return StandardUpdater
    if name == 'ParallelUpdater':
        from chainlite.training.updaters.parallel_updater import ParallelUpdater
        return ParallelUpdater
    raise AttributeError('module %r has no attribute %r' % (__name__, name))
