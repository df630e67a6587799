"""Updaters: what one training iteration does."""
from chainlite.training.updaters.standard_updater import StandardUpdater  # noqa: F401
from chainlite.training.updaters.parallel_updater import ParallelUpdater  # noqa: F401
