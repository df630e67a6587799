"""LinearShift: move an optimizer attribute linearly from one value to another."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence

from chainlite.training.extensions import _shift

if TYPE_CHECKING:
    from chainlite.optimizer import Optimizer


class LinearShift(_shift.OptimizerShift):
    """Trainer extension moving an optimizer attribute linearly between two values.

    With ``value_range == (v1, v2)`` and ``time_range == (t1, t2)``, the attribute is ``v1``
    up to call ``t1``, moves linearly to reach ``v2`` at call ``t2``, and stays ``v2`` after
    it. A typical use is warming up the momentum. The value for call 0 is set before training
    starts; after a resume from a snapshot, the last value set is restored.

    Args:
        attr: The name of the optimizer attribute (e.g. ``'momentum'``).
        value_range: The first and the last values ``(v1, v2)``.
        time_range: The call counts ``(t1, t2)`` where the change starts and ends.
        optimizer: The optimizer to adjust; the updater's ``'main'`` optimizer if None.

    Raises:
        ValueError: If either range does not hold exactly two values.

    Example:
        >>> from chainlite import optimizers
        >>> from chainlite.training import extensions
        >>> opt = optimizers.SGD(lr=0.1)
        >>> shift = extensions.LinearShift('lr', (0.0, 1.0), (0, 4), optimizer=opt)
        >>> shift.initialize(trainer=None)  # usually: trainer.extend(shift)
        >>> values = []
        >>> for _ in range(5):
        ...     shift(trainer=None)
        ...     values.append(opt.lr)
        >>> values
        [0.25, 0.5, 0.75, 1.0, 1.0]
    """

    def __init__(self, attr: str, value_range: Sequence[float], time_range: Sequence[int],
                 optimizer: Optional[Optimizer] = None) -> None:
        if len(value_range) != 2 or len(time_range) != 2:
            raise ValueError('LinearShift: value_range and time_range must be pairs, got %r '
                             'and %r' % (value_range, time_range))
        # The first value stands for `init`, so initialize() never reads the attribute.
        super().__init__(attr, value_range[0], optimizer)
        self._value_range = value_range
        self._time_range = time_range

    def _initial_value(self) -> Any:
        return self._value()

    def _value(self) -> Any:
        t1, t2 = self._time_range
        v1, v2 = self._value_range
        t = self._t
        if t <= t1:
            return v1
        if t >= t2:
            return v2
        return v1 + (t - t1) / (t2 - t1) * (v2 - v1)
