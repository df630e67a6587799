"""The common part of the extensions that schedule an optimizer attribute (``lr``, ...)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import numpy

from chainlite.training import extension

if TYPE_CHECKING:
    from chainlite.training.trainer import Trainer


def stop_at_target(value: Any, target: Any, growing: bool) -> Any:
    """``value``, or ``target`` once ``value`` has passed it.

    The test is on the ratio, so a schedule of negative values stops at its target too.
    """
    if target is not None:
        ratio = value / target
        if ratio > 1 if growing else ratio < 1:
            return target
    return value


def default_attr(optimizer: Any) -> str:
    """``'lr'``, or ``'alpha'`` for an optimizer whose step size is ``alpha`` (Adam's family)."""
    hyperparam = getattr(optimizer, 'hyperparam', None)
    if hyperparam is not None and not hasattr(hyperparam, 'lr') and hasattr(hyperparam, 'alpha'):
        return 'alpha'
    return 'lr'


def scalar(value: Any) -> Any:
    # NPZ snapshots give 0-d arrays back; schedules keep Python numbers.
    return value.item() if isinstance(value, numpy.ndarray) else value


def check_target(cls_name: str, target: Any) -> None:
    # A zero target would divide by zero at the first call, far from the mistake.
    if target is not None and target == 0:
        raise ValueError('%s: target must be nonzero (or None for no target), got %r'
                         % (cls_name, target))


class OptimizerShift(extension.Extension):
    """Base of the schedules: counts calls and sets the attribute to ``_value()`` after each."""

    # Optimizers do not save their hyperparameters, so the count and the last value go into
    # snapshots (Chainer's keys `_t` and `_last_value`) and initialize() restores the attribute.

    def __init__(self, attr: Optional[str], init: Any, optimizer: Any) -> None:
        # None until _get_optimizer() picks the default for the optimizer.
        self._attr: str = attr  # type: ignore[assignment]
        self._init = init
        self._optimizer = optimizer
        self._t = 0
        self._last_value: Optional[Any] = None
        self._initialized = False

    def _get_optimizer(self, trainer: Optional[Trainer]) -> Any:
        optimizer = self._optimizer
        if optimizer is None:
            if trainer is None:
                raise ValueError('%s: without a trainer, pass the optimizer to adjust '
                                 '(optimizer=...)' % type(self).__name__)
            optimizer = trainer.updater.get_optimizer('main')
        if self._attr is None:
            self._attr = default_attr(optimizer)
        return optimizer

    def _update_value(self, optimizer: Any, value: Any) -> None:
        setattr(optimizer, self._attr, value)
        self._last_value = value
        self._initialized = True

    @property
    def last_value(self) -> Any:
        """The value last set (PyTorch's ``get_last_lr()``), or None before ``initialize``."""
        return self._last_value

    def step(self, metric: Any = None) -> None:
        """Moves the schedule one call on in a hand-written loop (one trigger firing).

        Call ``initialize()`` once before the loop, as the Trainer does for extensions.

        Args:
            metric: Only for schedules driven by a measured value (:class:`ReduceOnPlateau`).

        Raises:
            RuntimeError: If ``initialize()`` has not been called.
        """
        if not self._initialized:
            raise RuntimeError('%s: call initialize() once before the first step() (the '
                               'Trainer does it for extensions)' % type(self).__name__)
        if metric is not None:
            raise TypeError('%s.step() takes no metric' % type(self).__name__)
        self(None)  # type: ignore[arg-type]

    def _initial_value(self) -> Any:
        return self._init

    def _value(self) -> Any:
        raise NotImplementedError

    def initialize(self, trainer: Optional[Trainer] = None) -> None:
        """Sets the attribute to its initial value, or to the last one after a resume."""
        optimizer = self._get_optimizer(trainer)
        if self._init is None:
            self._init = getattr(optimizer, self._attr)
        value = self._last_value
        self._update_value(optimizer, self._initial_value() if value is None else value)

    def __call__(self, trainer: Trainer) -> None:
        """Counts one call and sets the attribute to the schedule's value for it."""
        self._t += 1
        self._update_value(self._get_optimizer(trainer), self._value())

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the call count and the last value set."""
        self._t = int(serializer('_t', self._t))
        last = serializer('_last_value', self._last_value)
        self._last_value = scalar(last)
