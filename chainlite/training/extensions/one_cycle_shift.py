"""OneCycleShift: the one-cycle policy, up to a peak and down far below the start."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Optional

from chainlite.training.extensions import _shift

if TYPE_CHECKING:
    from chainlite.optimizer import Optimizer


class OneCycleShift(_shift.OptimizerShift):
    """Trainer extension (and loop schedule) following the one-cycle policy.

    The attribute starts at ``max_value / div_factor``, rises to ``max_value`` over the first
    ``pct_start`` of ``total`` calls, then falls to ``max_value / div_factor /
    final_div_factor`` at call ``total - 1`` and stays there (Smith and Topin, 2017,
    https://arxiv.org/abs/1708.07120). The phases and formulas are PyTorch's ``OneCycleLR``
    (``anneal='cos'`` or ``'linear'``, ``three_phase``), without its momentum cycling. The
    value for call 0 is set before training starts; after a resume from a snapshot, the last
    value set is restored.

    Args:
        max_value: The peak value.
        total: The number of calls of the whole cycle.
        pct_start: The fraction of the cycle spent rising.
        anneal: ``'cos'`` or ``'linear'`` interpolation within a phase.
        div_factor: The start value is ``max_value / div_factor``.
        final_div_factor: The last value is the start value divided by this.
        three_phase: Fall back to the start value symmetrically, then to the last value.
        attr: The optimizer attribute; ``'lr'``, or ``'alpha'`` for Adam's family, if None.
        optimizer: The optimizer to adjust; the updater's ``'main'`` optimizer if None.

    Raises:
        ValueError: If ``total`` is not positive, ``pct_start`` is outside (0, 1) or
            ``anneal`` is unknown.

    Example:
        >>> from chainlite import optimizers
        >>> from chainlite.training import extensions
        >>> opt = optimizers.SGD()
        >>> sched = extensions.OneCycleShift(1.0, 5, pct_start=0.4, anneal='linear',
        ...                                  div_factor=4, final_div_factor=2, optimizer=opt)
        >>> sched.initialize()  # usually: trainer.extend(sched)
        >>> values = [opt.lr]
        >>> for _ in range(4):
        ...     sched.step()
        ...     values.append(round(opt.lr, 4))
        >>> values
        [0.25, 1.0, 0.7083, 0.4167, 0.125]
    """

    def __init__(self, max_value: float, total: int, pct_start: float = 0.3,
                 anneal: str = 'cos', div_factor: float = 25.0,
                 final_div_factor: float = 1e4, three_phase: bool = False,
                 attr: Optional[str] = None, optimizer: Optional[Optimizer] = None) -> None:
        if not total > 0:
            raise ValueError('OneCycleShift: total must be positive, got %r' % (total,))
        if not 0 < pct_start < 1:
            raise ValueError('OneCycleShift: pct_start must be in (0, 1), got %r'
                             % (pct_start,))
        if anneal not in ('cos', 'linear'):
            raise ValueError("OneCycleShift: anneal must be 'cos' or 'linear', got %r"
                             % (anneal,))
        initial = max_value / div_factor
        super().__init__(attr, initial, optimizer)
        last = initial / final_div_factor
        rise = float(pct_start * total) - 1
        if three_phase:
            self._phases = [(rise, initial, max_value), (2 * rise, max_value, initial),
                            (total - 1, initial, last)]
        else:
            self._phases = [(rise, initial, max_value), (total - 1, max_value, last)]
        self._anneal = anneal

    def _initial_value(self) -> Any:
        return self._value()

    def _value(self) -> Any:
        t = min(self._t, self._phases[-1][0])
        start_t = 0.0
        for end_t, start, end in self._phases:
            if t <= end_t or end_t == self._phases[-1][0]:
                pct = (t - start_t) / (end_t - start_t) if end_t > start_t else 1.0
                if self._anneal == 'cos':
                    return end + (start - end) / 2 * (math.cos(math.pi * pct) + 1)
                return (end - start) * pct + start
            start_t = end_t
        raise AssertionError('unreachable')
