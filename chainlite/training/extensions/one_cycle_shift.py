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
    (``anneal='cos'`` or ``'linear'``, ``three_phase``). The value for call 0 is set before
    training starts; after a resume from a snapshot, the last value set is restored.

    Like ``OneCycleLR(cycle_momentum=True)``, it also cycles the optimizer's momentum
    inversely to the step size: from ``max_momentum`` down to ``base_momentum`` while the
    step size rises, and back up while it falls (in three phases: down, up, then held at
    ``max_momentum``). The momentum is ``momentum`` for MomentumSGD, NesterovAG and the
    other optimizers that have one, and ``beta1`` for Adam's family. PyTorch's SGD and
    RMSprop always have a momentum (zero by default) that ``OneCycleLR`` then raises to
    0.95; chainlite's SGD, RMSprop and AdaGrad have none, so the default
    ``cycle_momentum=None`` cycles the momentum where the optimizer has one and
    ``attr`` is its step size, and leaves it alone otherwise; ``True`` insists on it. The
    momentum follows from the call count, which snapshots keep, so a resume restores it.

    Args:
        max_value: The peak value.
        total: The number of calls of the whole cycle.
        pct_start: The fraction of the cycle spent rising.
        anneal: ``'cos'`` or ``'linear'`` interpolation within a phase.
        div_factor: The start value is ``max_value / div_factor``.
        final_div_factor: The last value is the start value divided by this.
        three_phase: Fall back to the start value symmetrically, then to the last value.
        cycle_momentum: Whether to cycle the momentum too: None for wherever the optimizer
            has one (and ``attr`` is the step size), True to require it, False never.
        base_momentum: The momentum at the peak of the step size.
        max_momentum: The momentum at the start and at the end.
        attr: The optimizer attribute; ``'lr'``, or ``'alpha'`` for Adam's family, if None.
        optimizer: The optimizer to adjust; the updater's ``'main'`` optimizer if None.

    Raises:
        ValueError: If ``total`` is not positive, ``pct_start`` is outside (0, 1),
            ``anneal`` is unknown, or (at ``initialize``) ``cycle_momentum=True`` and the
            optimizer has no momentum.

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
        >>> opt = optimizers.MomentumSGD()
        >>> sched = extensions.OneCycleShift(1.0, 5, pct_start=0.4, anneal='linear',
        ...                                  optimizer=opt)
        >>> sched.initialize()
        >>> momenta = [opt.momentum]
        >>> for _ in range(4):
        ...     sched.step()
        ...     momenta.append(round(opt.momentum, 4))
        >>> momenta
        [0.95, 0.85, 0.8833, 0.9167, 0.95]
    """

    def __init__(self, max_value: float, total: int, pct_start: float = 0.3,
                 anneal: str = 'cos', div_factor: float = 25.0,
                 final_div_factor: float = 1e4, three_phase: bool = False,
                 attr: Optional[str] = None, optimizer: Optional[Optimizer] = None,
                 cycle_momentum: Optional[bool] = None, base_momentum: float = 0.85,
                 max_momentum: float = 0.95) -> None:
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
        low, high = base_momentum, max_momentum
        if three_phase:
            self._phases = [(rise, initial, max_value), (2 * rise, max_value, initial),
                            (total - 1, initial, last)]
            self._momentum_phases = [(rise, high, low), (2 * rise, low, high),
                                     (total - 1, high, high)]
        else:
            self._phases = [(rise, initial, max_value), (total - 1, max_value, last)]
            self._momentum_phases = [(rise, high, low), (total - 1, low, high)]
        self._anneal = anneal
        self._cycle_momentum = cycle_momentum
        # The optimizer's momentum attribute once chosen ('' for none), see _momentum_attr.
        self._momentum_name: Optional[str] = None
        if optimizer is not None:
            self._momentum_attr(self._get_optimizer(None))  # a missing momentum fails here

    def _momentum_attr(self, optimizer: Any) -> str:
        if self._momentum_name is None:
            hyperparam = getattr(optimizer, 'hyperparam', None)
            name = next((n for n in ('momentum', 'beta1') if hasattr(hyperparam, n)), '')
            if self._cycle_momentum and not name:
                raise ValueError(
                    'OneCycleShift: cycle_momentum=True, but %s has no momentum (neither '
                    "'momentum' nor 'beta1'); pass cycle_momentum=False"
                    % type(optimizer).__name__)
            if self._cycle_momentum is None and self._attr != _shift.default_attr(optimizer):
                name = ''
            self._momentum_name = name if self._cycle_momentum is not False else ''
        return self._momentum_name

    def _update_value(self, optimizer: Any, value: Any) -> None:
        super()._update_value(optimizer, value)
        name = self._momentum_attr(optimizer)
        if name:
            setattr(optimizer, name, self._interpolate(self._momentum_phases))

    def _initial_value(self) -> Any:
        return self._value()

    def _value(self) -> Any:
        return self._interpolate(self._phases)

    def _interpolate(self, phases: list) -> Any:
        t = min(self._t, phases[-1][0])
        start_t = 0.0
        for end_t, start, end in phases:
            if t <= end_t or end_t == phases[-1][0]:
                pct = (t - start_t) / (end_t - start_t) if end_t > start_t else 1.0
                if self._anneal == 'cos':
                    return end + (start - end) / 2 * (math.cos(math.pi * pct) + 1)
                return (end - start) * pct + start
            start_t = end_t
        raise AssertionError('unreachable')
