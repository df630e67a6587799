"""CosineShift: cosine annealing of an optimizer attribute, with warm restarts and warm-up."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Optional

from chainlite.training.extensions import _shift

if TYPE_CHECKING:
    from chainlite.optimizer import Optimizer


class CosineShift(_shift.OptimizerShift):
    """Trainer extension (and loop schedule) annealing an attribute along a cosine.

    After call ``t`` (counted from the end of the warm-up) the attribute is
    ``eta_min + (init - eta_min) * (1 + cos(pi * t / t_max)) / 2`` (Loshchilov and Hutter,
    2016, https://arxiv.org/abs/1608.03983). Without ``t_mult`` it stays at ``eta_min`` after
    ``t_max`` calls (PyTorch's ``CosineAnnealingLR`` climbs back instead); with ``t_mult`` it
    restarts at ``init``, each period ``t_mult`` times longer than the last (PyTorch's
    ``CosineAnnealingWarmRestarts`` with ``T_0=t_max``). With ``warmup_iter`` the attribute
    first rises linearly from ``warmup_start`` to ``init`` over that many calls.

    The attribute is set before training starts (``initialize``); after a resume from a
    snapshot, the last value set is restored. In a hand-written loop, pass ``optimizer``, call
    ``initialize()`` once and ``step()`` after each iteration (or epoch).

    Args:
        t_max: The number of calls of the (first) cosine period.
        eta_min: The value at the end of a period.
        t_mult: If given (an integer >= 1), restart after each period, the next one
            ``t_mult`` times longer.
        warmup_iter: The number of calls of the linear warm-up before the cosine.
        warmup_start: The value at the start of the warm-up.
        attr: The optimizer attribute; ``'lr'``, or ``'alpha'`` for Adam's family, if None.
        init: The value at the start of the cosine; the attribute's value before training
            if None.
        optimizer: The optimizer to adjust; the updater's ``'main'`` optimizer if None.

    Raises:
        ValueError: If ``t_max`` is not positive, ``t_mult`` is below 1 or ``warmup_iter``
            is negative.

    Example:
        >>> from chainlite import optimizers
        >>> from chainlite.training import extensions
        >>> opt = optimizers.SGD(lr=1.0)
        >>> sched = extensions.CosineShift(4, optimizer=opt)
        >>> sched.initialize()  # usually: trainer.extend(sched)
        >>> values = []
        >>> for _ in range(5):
        ...     sched.step()
        ...     values.append(round(opt.lr, 4))
        >>> values
        [0.8536, 0.5, 0.1464, 0.0, 0.0]
    """

    def __init__(self, t_max: int, eta_min: float = 0.0, t_mult: Optional[int] = None,
                 warmup_iter: int = 0, warmup_start: float = 0.0, attr: Optional[str] = None,
                 init: Optional[float] = None, optimizer: Optional[Optimizer] = None) -> None:
        if not t_max > 0:
            raise ValueError('CosineShift: t_max must be positive, got %r' % (t_max,))
        if t_mult is not None and not t_mult >= 1:
            raise ValueError('CosineShift: t_mult must be at least 1, got %r' % (t_mult,))
        if warmup_iter < 0:
            raise ValueError('CosineShift: warmup_iter must be nonnegative, got %r'
                             % (warmup_iter,))
        super().__init__(attr, init, optimizer)
        self._t_max = t_max
        self._eta_min = eta_min
        self._t_mult = t_mult
        self._warmup_iter = warmup_iter
        self._warmup_start = warmup_start

    def _initial_value(self) -> Any:
        return self._value()

    def _value(self) -> Any:
        t, n = self._t, self._warmup_iter
        if t < n:
            return self._warmup_start + t / n * (self._init - self._warmup_start)
        t -= n
        period = self._t_max
        if self._t_mult is None:
            t = min(t, period)
        else:
            while t >= period:
                t -= period
                period *= self._t_mult
        return self._eta_min + (self._init - self._eta_min) * (
            1 + math.cos(math.pi * t / period)) / 2
