"""PolynomialShift: ``init * (1 - t / max_count) ** rate``, a polynomial decay to zero."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from chainlite.training.extensions import _shift

if TYPE_CHECKING:
    from chainlite.optimizer import Optimizer


class PolynomialShift(_shift.OptimizerShift):
    """Trainer extension setting an optimizer attribute to ``init * (1 - t/max_count) ** rate``.

    The typical use is a polynomial decay of the learning rate over ``max_count``
    iterations; the base is clipped at 0, so the value stays 0 (or at ``target``) afterwards.
    The attribute is set to ``init`` before training starts. After a resume from a snapshot,
    the last value set is restored.

    Args:
        attr: The name of the optimizer attribute (e.g. ``'lr'``).
        rate: The exponent of the decay.
        max_count: The number of calls after which the decay reaches 0.
        init: The initial value; the attribute's value before training if None.
        target: The value where the shift stops, or None for none.
        optimizer: The optimizer to adjust; the updater's ``'main'`` optimizer if None.

    Example:
        >>> from chainlite import optimizers
        >>> from chainlite.training import extensions
        >>> opt = optimizers.SGD(lr=1.0)
        >>> shift = extensions.PolynomialShift('lr', 2, 4, optimizer=opt)
        >>> shift.initialize(trainer=None)  # usually: trainer.extend(shift)
        >>> values = []
        >>> for _ in range(5):
        ...     shift(trainer=None)
        ...     values.append(opt.lr)
        >>> values
        [0.5625, 0.25, 0.0625, 0.0, 0.0]
    """

    def __init__(self, attr: str, rate: float, max_count: int, init: Optional[float] = None,
                 target: Optional[float] = None, optimizer: Optional[Optimizer] = None) -> None:
        super().__init__(attr, init, optimizer)
        self._rate = rate
        self._max_count = max_count
        self._target = target

    def _value(self) -> Any:
        decay = max(1 - self._t / self._max_count, 0)
        value = self._init * decay ** self._rate
        target = self._target
        if target is None:
            return value
        if value == 0:
            # The decay reached zero: any nonzero target is above it (Chainer divides by zero).
            return target if self._rate > 0 else value
        # The ratio is taken this way round so that negative schedules compare as Chainer's.
        ratio = target / value
        return target if (ratio > 1 if self._rate > 0 else ratio < 1) else value
