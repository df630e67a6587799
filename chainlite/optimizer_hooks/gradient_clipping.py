"""Rescaling of all gradients to a maximum global L2 norm."""
from __future__ import annotations

import math
from typing import Any

import numpy

from chainlite import backend
from chainlite.backends import cuda


class GradientClipping:
    """Scales all gradients down so that their joint L2 norm is at most ``threshold``.

    Called once per update with the optimizer (not per parameter): the norm is taken over
    the gradients of every initialised parameter of the target together.

    Args:
        threshold: The largest allowed L2 norm.

    Attributes:
        threshold (float): The largest allowed L2 norm.
        timing (str): ``'pre'``: called before the update (``'post'`` is also accepted).

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite import optimizer_hooks, optimizers
        >>> model = chainlite.Link()
        >>> with model.init_scope():
        ...     model.W = chainlite.Parameter(np.zeros(2, np.float32))
        >>> opt = optimizers.SGD().setup(model)
        >>> model.W.grad = np.array([3.0, 4.0], np.float32)
        >>> optimizer_hooks.GradientClipping(1.0)(opt)   # the norm 5 becomes 1
        >>> model.W.grad
        array([0.6, 0.8], dtype=float32)
    """

    name = 'GradientClipping'
    timing = 'pre'

    def __init__(self, threshold: float) -> None:
        self.threshold = threshold

    def __call__(self, opt: Any) -> None:
        grads = [p.grad for p in opt.target.params(False)]
        grads = [g for g in grads if g is not None]
        sqnorm = 0.0
        for value in _squared_norms(grads):
            sqnorm += value
        norm = math.sqrt(sqnorm)
        if norm <= self.threshold:
            return
        rate = self.threshold / norm
        for g in grads:
            if g.__class__ is numpy.ndarray:
                g *= rate
            else:
                with g.device:  # (on its own GPU)
                    g *= rate


def _squared_norms(grads: list[Any]) -> list[float]:
    # Each gradient's squared L2 norm as a Python float, in order. The threshold test needs
    # the norm on the host: the GPU arrays' norms come over in one transfer per device, as
    # float64 (exactly the float() of each, so the sum is the CPU's).
    norms: list[Any] = []
    pending: dict[int, list[tuple[int, Any]]] = {}
    for g in grads:
        if g.__class__ is numpy.ndarray:
            g = g.ravel()
            norms.append(float(g.dot(g)))
            continue
        with g.device:
            g = g.ravel()
            pending.setdefault(g.device.id, []).append((len(norms), g.dot(g)))
        norms.append(None)
    for items in pending.values():
        device = backend.get_device_from_array(items[0][1])
        with device:
            stacked = device.xp.stack([d for _, d in items]).astype(numpy.float64)
        for (i, _), value in zip(items, cuda.to_cpu(stacked).tolist()):
            norms[i] = value
    return norms
