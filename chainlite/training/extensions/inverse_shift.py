"""InverseShift: Caffe's ``inv`` policy, ``init * (1 + gamma * t) ** (-power)``."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from chainlite.training.extensions import _shift

if TYPE_CHECKING:
    from chainlite.optimizer import Optimizer


class InverseShift(_shift.OptimizerShift):
    """Trainer extension setting an optimizer attribute to ``init * (1 + gamma * t) ** -power``.

    This is the ``inv`` learning-rate policy of Caffe. The attribute is set to ``init``
    before training starts, and stays at ``target`` once it has passed it. After a resume
    from a snapshot, the last value set is restored.

    Args:
        attr: The name of the optimizer attribute (e.g. ``'lr'``).
        gamma: The factor of the call count (nonnegative).
        power: The exponent; positive values decrease the attribute.
        init: The initial value; the attribute's value before training if None.
        target: The value where the shift stops (nonzero), or None for none.
        optimizer: The optimizer to adjust; the updater's ``'main'`` optimizer if None.

    Raises:
        ValueError: If ``gamma`` is negative or ``target`` is zero.

    Example:
        >>> from chainlite import optimizers
        >>> from chainlite.training import extensions
        >>> opt = optimizers.SGD(lr=1.0)
        >>> shift = extensions.InverseShift('lr', 1.0, 1.0, optimizer=opt)
        >>> shift.initialize(trainer=None)  # usually: trainer.extend(shift)
        >>> shift(trainer=None)
        >>> opt.lr
        0.5
    """

    def __init__(self, attr: str, gamma: float, power: float, init: Optional[float] = None,
                 target: Optional[float] = None, optimizer: Optional[Optimizer] = None) -> None:
        if gamma < 0:
            raise ValueError('InverseShift: gamma must be nonnegative, got %r' % (gamma,))
        _shift.check_target('InverseShift', target)
        super().__init__(attr, init, optimizer)
        self._gamma = gamma
        self._power = power
        self._target = target

    def _value(self) -> Any:
        value = self._init * (1 + self._gamma * self._t) ** (-self._power)
        return _shift.stop_at_target(value, self._target, self._power < 0)
