"""Layer-wise adaptive rate scaling (LARS) of the gradients."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy

from chainlite import backend
from chainlite.optimizer_hooks import _common

if TYPE_CHECKING:
    from chainlite import optimizer
    from chainlite import variable


class GradientLARS:
    """Rescales each parameter's gradient to the size of the parameter (LARS).

    For a parameter whose L2 norm exceeds ``threshold``, the gradient becomes
    ``(grad + weight_decay * param) * |param| / (eps + |grad| + weight_decay * |param|)``;
    for the others, ``grad + weight_decay * param``. With it, an SGD learning rate acts per
    layer relative to the layer's weights (https://arxiv.org/abs/1708.03888,
    https://arxiv.org/abs/1801.03137).

    Args:
        threshold: Parameters with a smaller norm are not rescaled.
        weight_decay: The coefficient of the weight decay added first.
        eps: A small value that keeps the denominator away from zero.

    Attributes:
        threshold (float): Parameters with a smaller norm are not rescaled.
        weight_decay (float): The coefficient of the weight decay.
        eps (float): A small value that keeps the denominator away from zero.
        timing (str): ``'pre'``: called before the update (``'post'`` is also accepted).
        call_for_each_param (bool): True: called as ``hook(rule, param)`` per parameter.

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite import optimizer_hooks
        >>> p = chainlite.Parameter(np.array([3.0, 4.0], np.float32))
        >>> p.grad = np.array([0.0, 10.0], np.float32)
        >>> optimizer_hooks.GradientLARS(eps=0.0)(None, p)
        >>> p.grad   # |p| / |grad| = 0.5
        array([0., 5.], dtype=float32)
    """

    name = 'GradientLARS'
    call_for_each_param = True
    timing = 'pre'

    def __init__(self, threshold: float = 1e-2, weight_decay: float = 0.0,
                 eps: float = 1e-9) -> None:
        self.threshold = threshold
        self.weight_decay = weight_decay
        self.eps = eps

    def __call__(self, rule: optimizer.UpdateRule, param: variable.Variable) -> None:
        pair = _common.array_and_grad(param)
        if pair is None:
            return
        p, g = pair
        p_norm = numpy.linalg.norm(p)
        g_norm = numpy.linalg.norm(g)
        if self.weight_decay != 0:
            g += self.weight_decay * p
        if p.__class__ is numpy.ndarray:
            if p_norm > self.threshold:
                g *= p_norm / (self.eps + g_norm + self.weight_decay * p_norm)
            return
        # On a GPU the test stays on the device (no transfer per parameter and step): a rate
        # of 1 leaves a gradient below the threshold as it is, to the bit.
        rate = p_norm / (self.eps + g_norm + self.weight_decay * p_norm)
        g *= backend.get_array_module(p).where(p_norm > self.threshold, rate, 1)
