"""L1 regularization as an optimizer hook."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy

from chainlite.optimizer_hooks import _common

if TYPE_CHECKING:
    from chainlite import optimizer
    from chainlite import variable


class Lasso:
    """Adds ``rate * sign(param)`` to each parameter's gradient (L1 regularization).

    Args:
        rate: The coefficient of the regularization.

    Attributes:
        rate (float): The coefficient of the regularization.
        timing (str): ``'pre'``: called before the update (``'post'`` is also accepted).
        call_for_each_param (bool): True: called as ``hook(rule, param)`` per parameter.

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite import optimizer_hooks
        >>> p = chainlite.Parameter(np.array([3.0, -2.0, 0.0], np.float32))
        >>> p.grad = np.zeros(3, np.float32)
        >>> optimizer_hooks.Lasso(0.5)(None, p)
        >>> p.grad
        array([ 0.5, -0.5,  0. ], dtype=float32)
    """

    name = 'Lasso'
    call_for_each_param = True
    timing = 'pre'

    def __init__(self, rate: float) -> None:
        self.rate = rate

    def __call__(self, rule: optimizer.UpdateRule, param: variable.Variable) -> None:
        pair = _common.array_and_grad(param)
        if pair is None:
            return
        p, g = pair
        g += self.rate * numpy.sign(p)
