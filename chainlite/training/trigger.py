"""Chainer's old ``chainer.training.trigger`` module: ``IntervalTrigger`` and ``get_trigger``.

Chainer 1 kept them here; they live in :mod:`chainlite.training.triggers`.
"""
from chainlite.training.triggers import get_trigger as get_trigger  # noqa: F401
from chainlite.training.triggers import interval_trigger as _interval_trigger

IntervalTrigger = _interval_trigger.IntervalTrigger
