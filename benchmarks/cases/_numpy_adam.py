"""Adam written by hand for the NumPy twins of the benchmark cases.

In place, through one scratch array per parameter, in the order chainlite's ``AdamRule``
computes it (``m += (1 - beta1) (g - m)``, ``v += (1 - beta2) (g g - v)``,
``p -= alpha_t m / (sqrt(v) + eps)``), with the bias-corrected rate as a Python float so that
float32 parameters are updated in float32: the fastest plain NumPy a user would write, which
is what the cases' ratios are measured against.
"""
import math

import numpy as np


class Adam:
    """The update of ``params`` (a list of arrays, updated in place).

    Args:
        params: The parameters.
        alpha, beta1, beta2, eps: Adam's hyperparameters.
    """

    def __init__(self, params, alpha, beta1, beta2, eps):
        self.params = params
        self.alpha, self.beta1, self.beta2, self.eps = alpha, beta1, beta2, eps
        self.ms = [np.zeros_like(p) for p in params]
        self.vs = [np.zeros_like(p) for p in params]
        self.work = [np.empty_like(p) for p in params]
        self.t = 0

    def update(self, grads):
        """One step with ``grads`` (one array per parameter, in order)."""
        self.t += 1
        b1, b2 = self.beta1, self.beta2
        alpha_t = self.alpha * math.sqrt(1 - b2 ** self.t) / (1 - b1 ** self.t)
        for p, g, m, v, s in zip(self.params, grads, self.ms, self.vs, self.work):
            np.subtract(g, m, out=s)
            s *= 1 - b1
            m += s
            np.multiply(g, g, out=s)
            s -= v
            s *= 1 - b2
            v += s
            np.sqrt(v, out=s)
            s += self.eps
            np.divide(m, s, out=s)
            s *= alpha_t
            p -= s
