"""MultistepShift: multiply an optimizer attribute by ``gamma`` at given call counts."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence

from chainlite.training.extensions import _shift

if TYPE_CHECKING:
    from chainlite.optimizer import Optimizer
    from chainlite.training.trainer import Trainer


class MultistepShift(_shift.OptimizerShift):
    """Trainer extension multiplying an optimizer attribute by ``gamma`` at given call counts.

    With ``step_value == (s1, s2, s3)``, the attribute is ``init`` until call ``s1``,
    ``init * gamma`` from then until call ``s2``, ``init * gamma ** 2`` until ``s3``, and
    ``init * gamma ** 3`` afterwards (Caffe's ``multistep`` policy). The attribute is set to
    ``init`` before training starts; after a resume from a snapshot, it is set from the
    restored step count.

    Args:
        attr: The name of the optimizer attribute (e.g. ``'lr'``).
        gamma: The factor applied at each step.
        step_value: The increasing call counts at which a step is taken.
        init: The initial value; the attribute's value before training if None.
        optimizer: The optimizer to adjust; the updater's ``'main'`` optimizer if None.

    Example:
        >>> from chainlite import optimizers
        >>> from chainlite.training import extensions
        >>> opt = optimizers.SGD()
        >>> shift = extensions.MultistepShift('lr', 0.5, (2, 3), 1.0, optimizer=opt)
        >>> shift.initialize(trainer=None)  # usually: trainer.extend(shift)
        >>> values = []
        >>> for _ in range(4):
        ...     shift(trainer=None)
        ...     values.append(opt.lr)
        >>> values
        [1.0, 0.5, 0.25, 0.25]
    """

    def __init__(self, attr: str, gamma: float, step_value: Sequence[int],
                 init: Optional[float], optimizer: Optional[Optimizer] = None) -> None:
        super().__init__(attr, init, optimizer)
        self._gamma = gamma
        self._step_value = tuple(step_value)
        self._current_step = 0

    def _value(self) -> Any:
        return self._init * pow(self._gamma, self._current_step)

    def initialize(self, trainer: Optional[Trainer] = None) -> None:
        """Sets the attribute to ``init``, or to the value of the restored step after a resume."""
        optimizer = self._get_optimizer(trainer)
        if self._init is None:
            self._init = getattr(optimizer, self._attr)
        self._update_value(optimizer, self._init if self._current_step == 0 else self._value())

    def __call__(self, trainer: Trainer) -> None:
        """Counts one call, takes a step if its call count is reached, and sets the attribute."""
        self._t += 1
        # At most one step per call, as in Chainer.
        steps = self._step_value
        if self._current_step < len(steps) and self._t >= steps[self._current_step]:
            self._current_step += 1
        self._update_value(self._get_optimizer(trainer), self._value())

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the call count and the step count (Chainer's keys)."""
        self._t = int(serializer('_t', self._t))
        self._current_step = int(serializer('_current_step', self._current_step))
