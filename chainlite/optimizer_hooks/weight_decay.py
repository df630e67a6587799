"""L2 regularization as an optimizer hook."""
from __future__ import annotations

from typing import TYPE_CHECKING

from chainlite.optimizer_hooks import _common

if TYPE_CHECKING:
    from chainlite import optimizer
    from chainlite import variable


class WeightDecay:
    """Adds ``rate * param`` to each parameter's gradient (L2 regularization).

    Under loss scaling the rate is scaled too, so the decay keeps its meaning for a gradient
    that is not yet divided by the scale.

    Args:
        rate: The coefficient of the decay.

    Attributes:
        rate (float): The coefficient of the decay.
        timing (str): ``'pre'``: called before the update (``'post'`` is also accepted).
        call_for_each_param (bool): True: called as ``hook(rule, param)`` per parameter.

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite import optimizer_hooks
        >>> p = chainlite.Parameter(np.array([1.0, -2.0], np.float32))
        >>> p.grad = np.zeros(2, np.float32)
        >>> optimizer_hooks.WeightDecay(0.1)(None, p)
        >>> p.grad
        array([ 0.1, -0.2], dtype=float32)
    """

    name = 'WeightDecay'
    call_for_each_param = True
    timing = 'pre'

    def __init__(self, rate: float) -> None:
        self.rate = rate

    def __call__(self, rule: optimizer.UpdateRule, param: variable.Variable) -> None:
        pair = _common.array_and_grad(param)
        if pair is None:
            return
        p, g = pair
        rate = self.rate
        loss_scale = param.node._loss_scale
        if loss_scale is not None:
            rate *= loss_scale
        g += rate * p
