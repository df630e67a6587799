"""batch_normalization: a fused normalization layer, forward and backward.

``F.batch_normalization`` on a float32 (64, 50, 8, 8) x with (50,) gamma and beta (statistics
per channel over axes 0, 2, 3, running averages updated in place), then ``backward`` with a
fixed output gradient. NumPy: the same math written by hand, reducing with ``einsum`` as the
library does (``x.sum(axis=(0, 2, 3))`` is several times slower on this layout) and
computing ``gx`` with one new array.
"""
import numpy as np

import chainlite
from chainlite.functions.normalization.batch_normalization import batch_normalization

UNIT = 'ms/iter'
SCALE = 1e3
TARGETS = {'batch_normalization': None}
SHAPE = (64, 50, 8, 8)
EPS = 2e-5


def _arrays():
    rs = np.random.default_rng(0)
    x = rs.standard_normal(SHAPE).astype(np.float32)
    gamma = rs.uniform(0.5, 1.5, SHAPE[1]).astype(np.float32)
    beta = rs.standard_normal(SHAPE[1]).astype(np.float32)
    gy = rs.standard_normal(SHAPE).astype(np.float32)
    return x, gamma, beta, gy


def chainlite_case():
    x, gamma, beta, gy = _arrays()
    x, gamma, beta = chainlite.Variable(x), chainlite.Variable(gamma), chainlite.Variable(beta)
    running_mean = np.zeros(SHAPE[1], np.float32)
    running_var = np.ones(SHAPE[1], np.float32)

    def run():
        for v in (x, gamma, beta):
            v.cleargrad()
        y = batch_normalization(x, gamma, beta, EPS, running_mean, running_var)
        y.grad = gy
        y.backward()
        return y.array, x.grad, gamma.grad, beta.grad

    return {'batch_normalization': run}


def numpy_case():
    x, gamma, beta, gy = _arrays()
    running_mean = np.zeros(SHAPE[1], np.float32)
    running_var = np.ones(SHAPE[1], np.float32)
    kept = (1, SHAPE[1], 1, 1)
    m = x.size // SHAPE[1]

    def run():
        # Forward.
        mean = np.einsum('nchw->c', x) / m
        xc = x - mean.reshape(kept)
        var = np.einsum('nchw,nchw->c', xc, xc) / m
        inv_std = 1 / np.sqrt(var + EPS)
        xc *= inv_std.reshape(kept)
        x_hat = xc
        y = x_hat * gamma.reshape(kept)
        y += beta.reshape(kept)
        running_mean[...] = 0.9 * running_mean + 0.1 * mean
        running_var[...] = 0.9 * running_var + 0.1 * m / (m - 1) * var
        # Backward.
        gbeta = np.einsum('nchw->c', gy)
        ggamma = np.einsum('nchw,nchw->c', gy, x_hat)
        gx = x_hat * (ggamma / m).reshape(kept)
        gx += (gbeta / m).reshape(kept)
        np.subtract(gy, gx, out=gx)
        gx *= (gamma * inv_std).reshape(kept)
        return y, gx, ggamma, gbeta

    return {'batch_normalization': run}
