"""static_mlp: an Adam training step of a small MLP, define-by-run and under ``static_graph``.

The MLP is 64-100-100-10 with ReLU, batch 32, softmax cross entropy, Adam (the digits scale,
where per-op overhead rather than BLAS sets the pace; the shared yardstick's
``small_mlp_step`` and ``static_small_mlp_step``). chainlite: ``loss = F.softmax_cross_entropy(
model(x), t); model.cleargrads(); loss.backward(); optimizer.update()`` with the model's forward
plain (``dynamic_mlp_step``) or decorated with ``chainlite.static_graph``
(``static_mlp_step``). NumPy: the forward, the hand-written backward and Adam in place, as
``../shared/bench/bench_numpy_limit.py`` writes them. Each step returns the parameters, so
both versions are checked to train identically (to float32 rounding) before timing.
"""
import math

import numpy as np

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import optimizers

from cases import _numpy_adam

SIZES = (64, 100, 100, 10)
BATCH = 32
ALPHA, BETA1, BETA2, EPS = 0.001, 0.9, 0.999, 1e-8
UNIT = 'µs/step'
SCALE = 1e6
TARGETS = {'dynamic_mlp_step': 2.0, 'static_mlp_step': 1.2}


def _data():
    rng = np.random.default_rng(0)
    weights = []
    for n_in, n_out in zip(SIZES[:-1], SIZES[1:]):
        weights.append((rng.standard_normal((n_out, n_in)) / math.sqrt(n_in)).astype(np.float32))
        weights.append(np.zeros(n_out, np.float32))
    x = rng.random((BATCH, SIZES[0]), dtype=np.float32)
    t = rng.integers(0, SIZES[-1], BATCH).astype(np.int32)
    return weights, x, t


class _MLP(chainlite.Chain):

    def __init__(self, weights):
        super().__init__()
        with self.init_scope():
            for i in range(3):
                W, b = weights[2 * i], weights[2 * i + 1]
                setattr(self, 'l%d' % (i + 1), L.Linear(W.shape[1], W.shape[0],
                                                        initialW=W, initial_bias=b))

    def forward(self, x):
        h = F.relu(self.l1(x))
        h = F.relu(self.l2(h))
        return self.l3(h)


class _StaticMLP(_MLP):
    forward = chainlite.static_graph(_MLP.forward)


def _chainlite_step(cls):
    weights, x, t = _data()
    model = cls(weights)
    opt = optimizers.Adam(alpha=ALPHA, beta1=BETA1, beta2=BETA2, eps=EPS).setup(model)
    params = [model.l1.W, model.l1.b, model.l2.W, model.l2.b, model.l3.W, model.l3.b]

    def step():
        loss = F.softmax_cross_entropy(model(x), t)
        model.cleargrads()
        loss.backward()
        opt.update()
        return tuple(p.array for p in params)

    return step


def chainlite_case():
    return {'dynamic_mlp_step': _chainlite_step(_MLP),
            'static_mlp_step': _chainlite_step(_StaticMLP)}


def _numpy_step():
    params, x, t = _data()
    adam = _numpy_adam.Adam(params, ALPHA, BETA1, BETA2, EPS)
    idx = np.arange(BATCH)

    def step():
        W1, b1, W2, b2, W3, b3 = params
        a1 = x @ W1.T
        a1 += b1
        h1 = np.maximum(a1, 0, out=a1)
        a2 = h1 @ W2.T
        a2 += b2
        h2 = np.maximum(a2, 0, out=a2)
        z = h2 @ W3.T
        z += b3
        z -= z.max(axis=1, keepdims=True)      # softmax cross entropy and its gradient
        e = np.exp(z)
        e /= e.sum(axis=1, keepdims=True)
        e[idx, t] -= 1
        e *= np.float32(1.0 / BATCH)
        gz = e
        gh2 = gz @ W3
        gh2 *= h2 > 0
        gh1 = gh2 @ W2
        gh1 *= h1 > 0
        grads = [gh1.T @ x, gh1.sum(axis=0), gh2.T @ h1, gh2.sum(axis=0), gz.T @ h2,
                 gz.sum(axis=0)]
        adam.update(grads)
        return tuple(params)

    return step


def numpy_case():
    return {'dynamic_mlp_step': _numpy_step(), 'static_mlp_step': _numpy_step()}
