"""softmax_cross_entropy: the classifier loss of every training step, forward and backward.

``softmax_cross_entropy(x, t)`` (mean over the batch) on float32 logits x of (100, 10) (a
small MNIST-like batch, where per-call overhead dominates) and (1000, 1000) (where the
exponentials dominate), then ``backward`` to x. The NumPy version computes the same
log-sum-exp loss and the gradient ``(softmax(x) - onehot(t)) / N`` by hand, with chainlite's
tricks: the exponentials in place, the row sums as a product with a vector of ones (several
times faster than a reduction over a short last axis) and ``1 / N`` folded into the softmax's
per-row factor.
"""
import numpy as np

import chainlite
from chainlite.functions.loss.softmax_cross_entropy import softmax_cross_entropy

UNIT = 'us/iter'
SCALE = 1e6
SHAPES = {'sce_100x10': (100, 10), 'sce_1000x1000': (1000, 1000)}
TARGETS = {'sce_100x10': None, 'sce_1000x1000': None}


def _data(shape):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    t = rng.integers(0, shape[1], shape[0]).astype(np.int32)
    return x, t


def chainlite_case():
    cases = {}
    for row, shape in SHAPES.items():
        x_array, t = _data(shape)
        x = chainlite.Variable(x_array)

        def forward_backward(x=x, t=t):
            x.cleargrad()
            loss = softmax_cross_entropy(x, t)
            loss.backward()
            return loss.array, x.grad

        cases[row] = forward_backward
    return cases


def numpy_case():
    cases = {}
    for row, shape in SHAPES.items():
        x, t = _data(shape)
        rows = np.arange(len(t))
        ones = np.ones((shape[1], 1), np.float32)

        def forward_backward(x=x, t=t, rows=rows, ones=ones):
            m = x.max(axis=1, keepdims=True)
            e = x - m
            np.exp(e, out=e)
            s = e @ ones
            loss = (np.log(s) + m)[:, 0] - x[rows, t]
            loss = loss.mean()
            gx = e * ((1 / len(t)) / s)  # 1/N folded into the per-row factor: one pass
            gx[rows, t] -= 1 / len(t)
            return loss, gx

        cases[row] = forward_backward
    return cases
