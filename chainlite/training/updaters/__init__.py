"""Updaters: what one training iteration does."""
from chainlite.training.updaters.standard_updater import StandardUpdater  # noqa: F401
