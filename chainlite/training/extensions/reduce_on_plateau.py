"""ReduceOnPlateau: lower an optimizer attribute when a measured value stops improving."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Optional

from chainlite.training.extensions import _shift

if TYPE_CHECKING:
    from chainlite.optimizer import Optimizer
    from chainlite.training.trainer import Trainer


class ReduceOnPlateau(_shift.OptimizerShift):
    """Trainer extension (and loop schedule) multiplying an attribute by ``factor`` on a plateau.

    Each call reads a value (``trainer.observation[key]``, or the ``metric`` given to
    ``step``). A value better than the best so far by more than ``threshold`` resets the count
    of bad calls; when more than ``patience`` calls in a row were not better, the attribute
    is multiplied by ``factor`` (not below ``min_value``), and the next ``cooldown`` calls
    count no bad calls. The rules are PyTorch's ``ReduceLROnPlateau``. The best value, the
    counts and the last value set are saved in snapshots.

    Give it the trigger of the extension that reports the value: its default trigger is
    ``(1, 'epoch')``, an ``Evaluator``'s, and it reads the observation after the writers
    (the Evaluator) have run.

    Args:
        key: The observation read by the extension form (unused by ``step(metric)``).
        mode: ``'min'`` (lower is better) or ``'max'``.
        factor: The factor applied on a plateau (in [0, 1)).
        patience: The number of bad calls tolerated before reducing.
        threshold: The improvement needed to count as better.
        threshold_mode: ``'rel'`` (``best * (1 -/+ threshold)``) or ``'abs'``
            (``best -/+ threshold``).
        cooldown: The number of calls after a reduction during which bad calls are not counted.
        min_value: The lowest value the attribute is reduced to.
        eps: A reduction smaller than this is not applied.
        attr: The optimizer attribute; ``'lr'``, or ``'alpha'`` for Adam's family, if None.
        optimizer: The optimizer to adjust; the updater's ``'main'`` optimizer if None.

    Raises:
        ValueError: For an unknown ``mode`` or ``threshold_mode``, or ``factor`` outside
            [0, 1).

    Example:
        >>> from chainlite import optimizers
        >>> from chainlite.training import extensions
        >>> opt = optimizers.SGD(lr=1.0)
        >>> sched = extensions.ReduceOnPlateau(factor=0.5, patience=1, optimizer=opt)
        >>> sched.initialize()  # usually: trainer.extend(sched, trigger=(1, 'epoch'))
        >>> values = []
        >>> for loss in [3.0, 2.0, 2.0, 2.0, 1.0, 1.0, 1.0]:
        ...     sched.step(loss)
        ...     values.append(opt.lr)
        >>> values
        [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.25]
    """

    trigger = 1, 'epoch'

    def __init__(self, key: str = 'validation/main/loss', mode: str = 'min',
                 factor: float = 0.1, patience: int = 10, threshold: float = 1e-4,
                 threshold_mode: str = 'rel', cooldown: int = 0, min_value: float = 0.0,
                 eps: float = 1e-8, attr: Optional[str] = None,
                 optimizer: Optional[Optimizer] = None) -> None:
        if mode not in ('min', 'max'):
            raise ValueError("ReduceOnPlateau: mode must be 'min' or 'max', got %r" % (mode,))
        if threshold_mode not in ('rel', 'abs'):
            raise ValueError("ReduceOnPlateau: threshold_mode must be 'rel' or 'abs', got %r"
                             % (threshold_mode,))
        if not 0 <= factor < 1:
            raise ValueError('ReduceOnPlateau: factor must be in [0, 1), got %r' % (factor,))
        super().__init__(attr, None, optimizer)
        self._key = key
        self._mode = mode
        self._factor = factor
        self._patience = patience
        self._threshold = threshold
        self._threshold_mode = threshold_mode
        self._cooldown = cooldown
        self._min_value = min_value
        self._eps = eps
        self.best = math.inf if mode == 'min' else -math.inf
        self.num_bad = 0
        self.cooldown_counter = 0

    def _is_better(self, value: float) -> bool:
        best, th = self.best, self._threshold
        if self._mode == 'min':
            return value < (best * (1 - th) if self._threshold_mode == 'rel' else best - th)
        return value > (best * (1 + th) if self._threshold_mode == 'rel' else best + th)

    def _observe(self, optimizer: Any, metric: Any) -> None:
        value = float(getattr(metric, 'array', metric))
        self._t += 1
        if self._is_better(value):
            self.best = value
            self.num_bad = 0
        else:
            self.num_bad += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad = 0
        current = getattr(optimizer, self._attr)
        if self.num_bad > self._patience:
            new = max(current * self._factor, self._min_value)
            if current - new > self._eps:
                current = new
            self.cooldown_counter = self._cooldown
            self.num_bad = 0
        self._update_value(optimizer, current)

    def __call__(self, trainer: Trainer) -> None:
        """Reads ``trainer.observation[key]`` and counts one call."""
        if self._key not in trainer.observation:
            raise KeyError('ReduceOnPlateau: %r is not in the observation of iteration %d; '
                           'give the extension the trigger of the extension that reports it'
                           % (self._key, trainer.updater.iteration))
        self._observe(self._get_optimizer(trainer), trainer.observation[self._key])

    def step(self, metric: Any = None) -> None:
        """Counts one call with the measured ``metric`` (a number, array or Variable).

        Raises:
            RuntimeError: If ``initialize()`` has not been called.
            TypeError: If ``metric`` is missing.
        """
        if not self._initialized:
            raise RuntimeError('ReduceOnPlateau: call initialize() once before the first '
                               'step() (the Trainer does it for extensions)')
        if metric is None:
            raise TypeError('ReduceOnPlateau.step() needs the measured value: step(metric)')
        self._observe(self._get_optimizer(None), metric)

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the counts, the best value and the last value set."""
        super().serialize(serializer)
        self.best = float(_shift.scalar(serializer('best', self.best)))
        self.num_bad = int(serializer('num_bad', self.num_bad))
        self.cooldown_counter = int(serializer('cooldown_counter', self.cooldown_counter))
