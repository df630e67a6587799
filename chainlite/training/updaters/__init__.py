"""Updaters: what one training iteration does."""
from chainlite.training.updaters.standard_updater import StandardUpdater  # noqa: F401
from chainlite.training.updaters.parallel_updater import ParallelUpdater  # noqa: F401
from chainlite.training.updaters.multiprocess_parallel_updater import MultiprocessParallelUpdater  # noqa: F401,E501
