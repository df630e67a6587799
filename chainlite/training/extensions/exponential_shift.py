"""ExponentialShift: multiply an optimizer attribute by a constant rate at each call."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from chainlite.training.extensions import _shift

if TYPE_CHECKING:
    from chainlite.optimizer import Optimizer


class ExponentialShift(_shift.OptimizerShift):
    """Trainer extension setting an optimizer attribute to ``init * rate ** t`` after call t.

    The typical use is an exponential decay of the learning rate. The attribute is set to
    ``init`` before training starts, and stays at ``target`` once it has passed it. After a
    resume from a snapshot, the last value set is restored.

    Args:
        attr: The name of the optimizer attribute (e.g. ``'lr'``).
        rate: The factor applied at each call (nonnegative).
        init: The initial value; the attribute's value before training if None.
        target: The value where the shift stops (nonzero), or None for none.
        optimizer: The optimizer to adjust; the updater's ``'main'`` optimizer if None.

    Raises:
        ValueError: If ``rate`` is negative or ``target`` is zero.

    Example:
        >>> from chainlite import optimizers
        >>> from chainlite.training import extensions
        >>> opt = optimizers.SGD(lr=0.1)
        >>> shift = extensions.ExponentialShift('lr', 0.5, optimizer=opt)
        >>> shift.initialize(trainer=None)  # usually: trainer.extend(shift)
        >>> for _ in range(3):
        ...     shift(trainer=None)
        >>> opt.lr
        0.0125
    """

    def __init__(self, attr: str, rate: float, init: Optional[float] = None,
                 target: Optional[float] = None, optimizer: Optional[Optimizer] = None) -> None:
        if rate < 0:
            raise ValueError('ExponentialShift: rate must be nonnegative, got %r' % (rate,))
        _shift.check_target('ExponentialShift', target)
        super().__init__(attr, init, optimizer)
        self._rate = rate
        self._target = target

    def _value(self) -> Any:
        return _shift.stop_at_target(self._init * self._rate ** self._t, self._target,
                                     self._rate > 1)
