"""WarmupShift: raise an optimizer attribute evenly to its value over the first iterations."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from chainlite.training.extensions import _shift

if TYPE_CHECKING:
    from chainlite.optimizer import Optimizer
    from chainlite.training.trainer import Trainer


class WarmupShift(_shift.OptimizerShift):
    """Trainer extension moving an optimizer attribute evenly from a start value to ``init``.

    Over the first ``warmup_iter`` calls the attribute goes linearly from ``warmup_start`` to
    ``init``; after that the extension leaves it alone (another schedule may take over). The
    attribute is set to ``warmup_start`` before training starts; after a resume from a
    snapshot, it is set from the restored call count.

    Args:
        attr: The name of the optimizer attribute (e.g. ``'lr'``).
        warmup_start: The value at the start; the attribute's value before training if None.
        warmup_iter: The number of calls the warm-up lasts.
        init: The value reached after the warm-up; the attribute's value before training if
            None (Chainer requires it).
        optimizer: The optimizer to adjust; the updater's ``'main'`` optimizer if None.

    Raises:
        ValueError: If ``warmup_iter`` is not positive.

    Example:
        >>> from chainlite import optimizers
        >>> from chainlite.training import extensions
        >>> opt = optimizers.SGD(lr=1.0)
        >>> shift = extensions.WarmupShift('lr', 0.0, 4, optimizer=opt)
        >>> shift.initialize(trainer=None)  # usually: trainer.extend(shift)
        >>> values = [opt.lr]
        >>> for _ in range(5):
        ...     shift(trainer=None)
        ...     values.append(opt.lr)
        >>> values
        [0.0, 0.25, 0.5, 0.75, 1.0, 1.0]
    """

    def __init__(self, attr: str, warmup_start: Optional[float], warmup_iter: int,
                 init: Optional[float] = None, optimizer: Optional[Optimizer] = None) -> None:
        if not warmup_iter > 0:
            raise ValueError('WarmupShift: warmup_iter must be positive, got %r'
                             % (warmup_iter,))
        super().__init__(attr, init, optimizer)
        self._warmup_start = warmup_start
        self._warmup_iter = warmup_iter

    def _value(self) -> Any:
        start, end = self._warmup_start, self._init
        if start is None or end is None:
            raise RuntimeError('WarmupShift: warmup_start and init are read from the optimizer '
                               'by initialize(), which has not been called')
        n = self._warmup_iter
        t = min(self._t, n)  # after the warm-up, the value of its last call
        return (t * end + (n - t) * start) / n

    def initialize(self, trainer: Optional[Trainer] = None) -> None:
        """Sets the attribute to ``warmup_start``, or to the restored call's value."""
        optimizer = self._get_optimizer(trainer)
        # Both defaults are read before either is set.
        current = getattr(optimizer, self._attr) if None in (
            self._init, self._warmup_start) else None
        if self._init is None:
            self._init = current
        if self._warmup_start is None:
            self._warmup_start = current
        self._update_value(optimizer, self._warmup_start if self._t == 0 else self._value())

    def __call__(self, trainer: Trainer) -> None:
        """Counts one call and, during the warm-up, sets the attribute."""
        self._t += 1
        if self._t <= self._warmup_iter:
            self._update_value(self._get_optimizer(trainer), self._value())

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the call count (Chainer's key)."""
        self._t = int(serializer('_t', self._t))
