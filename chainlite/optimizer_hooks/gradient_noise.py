"""Annealed Gaussian noise added to the gradients."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy

from chainlite import backend
from chainlite.optimizer_hooks import _common

if TYPE_CHECKING:
    from chainlite import optimizer
    from chainlite import variable


def exponential_decay_noise(xp: Any, shape: tuple, dtype: Any, hook: 'GradientNoise',
                            opt: Any) -> Any:
    """Gaussian noise of variance ``hook.eta / (1 + opt.t) ** 0.55``.

    The default noise of :class:`GradientNoise` (https://arxiv.org/abs/1511.06807).

    Args:
        xp: The array module to draw with.
        shape: The shape of the noise.
        dtype: Its dtype.
        hook: The GradientNoise hook (for ``eta``).
        opt: The update rule (or optimizer) whose step count ``t`` anneals the noise.

    Returns:
        An array of noise.
    """
    std = numpy.sqrt(hook.eta / numpy.power(1 + opt.t, 0.55))
    return xp.random.normal(0, std, shape).astype(dtype)


class GradientNoise:
    """Adds noise from ``noise_func`` to each gradient (by default annealed Gaussian noise).

    Args:
        eta: The scale of the noise (0.01, 0.3 or 1.0 are the paper's choices).
        noise_func: Called as ``noise_func(xp, shape, dtype, hook, rule)``; returns the noise.

    Attributes:
        eta (float): The scale of the noise.
        noise_func (callable): The noise generator.
        timing (str): ``'pre'``: called before the update (``'post'`` is also accepted).
        call_for_each_param (bool): True: called as ``hook(rule, param)`` per parameter.

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite import optimizer_hooks
        >>> p = chainlite.Parameter(np.zeros(3, np.float32))
        >>> p.grad = np.zeros(3, np.float32)
        >>> ones = lambda xp, shape, dtype, hook, rule: xp.full(shape, hook.eta, dtype)
        >>> optimizer_hooks.GradientNoise(0.5, noise_func=ones)(None, p)
        >>> p.grad
        array([0.5, 0.5, 0.5], dtype=float32)
    """

    name = 'GradientNoise'
    call_for_each_param = True
    timing = 'pre'

    def __init__(self, eta: float, noise_func: Callable = exponential_decay_noise) -> None:
        self.eta = eta
        self.noise_func = noise_func

    def __call__(self, rule: optimizer.UpdateRule, param: variable.Variable) -> None:
        pair = _common.array_and_grad(param)
        if pair is None:
            return
        g = pair[1]
        xp = backend.get_array_module(g)
        g += self.noise_func(xp, g.shape, g.dtype, self, rule)
