"""Chainer's ``chainer.training._updater``: the :class:`~chainlite.training.Updater` base."""
from chainlite.training.updater import Updater as Updater  # noqa: F401
