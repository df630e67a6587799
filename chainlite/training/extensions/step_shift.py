"""StepShift: multiply an optimizer attribute by ``gamma`` every ``step`` calls."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Optional

from chainlite.training.extensions import _shift

if TYPE_CHECKING:
    from chainlite.optimizer import Optimizer


class StepShift(_shift.OptimizerShift):
    """Trainer extension setting an optimizer attribute to ``init * gamma ** floor(t / step)``.

    The typical use is dividing the learning rate by 10 every ``step`` iterations. The
    attribute is set to ``init`` before training starts, and stays at ``target`` once it has
    passed it. After a resume from a snapshot, the last value set is restored.

    Args:
        attr: The name of the optimizer attribute (e.g. ``'lr'``).
        gamma: The factor applied every ``step`` calls.
        step: The number of calls between two multiplications.
        init: The initial value; the attribute's value before training if None.
        target: The value where the shift stops (nonzero), or None for none.
        optimizer: The optimizer to adjust; the updater's ``'main'`` optimizer if None.

    Raises:
        ValueError: If ``step`` is not positive or ``target`` is zero.

    Example:
        >>> from chainlite import optimizers
        >>> from chainlite.training import extensions
        >>> opt = optimizers.SGD(lr=0.1)
        >>> shift = extensions.StepShift('lr', 0.5, 2, optimizer=opt)
        >>> shift.initialize(trainer=None)  # usually: trainer.extend(shift)
        >>> values = []
        >>> for _ in range(5):
        ...     shift(trainer=None)
        ...     values.append(opt.lr)
        >>> values
        [0.1, 0.05, 0.05, 0.025, 0.025]
    """

    def __init__(self, attr: str, gamma: float, step: int, init: Optional[float] = None,
                 target: Optional[float] = None, optimizer: Optional[Optimizer] = None) -> None:
        if not step > 0:
            raise ValueError('StepShift: step must be positive, got %r' % (step,))
        _shift.check_target('StepShift', target)
        super().__init__(attr, init, optimizer)
        self._gamma = gamma
        self._step = step
        self._target = target

    def _value(self) -> Any:
        # A float exponent, as Chainer's numpy.floor gives: integer arguments give floats.
        steps = float(math.floor(self._t / self._step))
        return _shift.stop_at_target(self._init * self._gamma ** steps, self._target,
                                     self._gamma > 1)
