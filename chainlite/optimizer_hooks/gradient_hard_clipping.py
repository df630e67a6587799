"""Elementwise clipping of gradients."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy

from chainlite.optimizer_hooks import _common

if TYPE_CHECKING:
    from chainlite import optimizer
    from chainlite import variable


class GradientHardClipping:
    """Clips every gradient element to ``[lower_bound, upper_bound]``, in place.

    Args:
        lower_bound: The smallest allowed gradient value.
        upper_bound: The largest allowed gradient value.

    Attributes:
        lower_bound (float): The smallest allowed gradient value.
        upper_bound (float): The largest allowed gradient value.
        timing (str): ``'pre'``: called before the update (``'post'`` is also accepted).
        call_for_each_param (bool): True: called as ``hook(rule, param)`` per parameter.

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite import optimizer_hooks
        >>> p = chainlite.Parameter(np.zeros(3, np.float32))
        >>> p.grad = np.array([-5.0, 0.5, 5.0], np.float32)
        >>> optimizer_hooks.GradientHardClipping(-1.0, 1.0)(None, p)
        >>> p.grad
        array([-1. ,  0.5,  1. ], dtype=float32)
    """

    name = 'GradientHardClipping'
    call_for_each_param = True
    timing = 'pre'

    def __init__(self, lower_bound: float, upper_bound: float) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def __call__(self, rule: optimizer.UpdateRule, param: variable.Variable) -> None:
        pair = _common.array_and_grad(param)
        if pair is None:
            return
        grad = pair[1]
        numpy.clip(grad, self.lower_bound, self.upper_bound, out=grad)
