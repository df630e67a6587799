"""Chainer's ``chainer._backprop``: :func:`backward`, which chainlite keeps in :mod:`.backprop`."""
from chainlite.backprop import backward as backward  # noqa: F401
