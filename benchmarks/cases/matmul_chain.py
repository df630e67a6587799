"""matmul_chain: a small tanh MLP where the matrix products dominate.

Three layers 256-256-256-256 written with ``F.matmul``, ``+`` (bias broadcast over the batch)
and ``F.tanh`` on a float32 (64, 256) batch; the loss is ``F.sum`` of the output, then
backward to the six parameters. Most time is spent in BLAS, so the ratio shows what the graph
adds to a BLAS-bound step; it should stay near 1.0 (no target set).
"""
import numpy as np

import chainlite
import chainlite.functions as F

BATCH, WIDTH, LAYERS = 64, 256, 3
UNIT = 'ms/iter'
SCALE = 1e3
TARGETS = {'matmul_chain': None}


def _data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, WIDTH)).astype(np.float32)
    params = []
    for _ in range(LAYERS):
        W = (rng.standard_normal((WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32)
        b = np.zeros(WIDTH, np.float32)
        params += [W, b]
    return x, params


def chainlite_case():
    x, arrays = _data()
    params = [chainlite.Parameter(a) for a in arrays]

    def forward_backward():
        for p in params:
            p.cleargrad()
        h = x
        for i in range(LAYERS):
            W, b = params[2 * i], params[2 * i + 1]
            h = F.matmul(h, W) + b
            if i < LAYERS - 1:
                h = F.tanh(h)
        loss = F.sum(h)
        loss.backward()
        return (loss.array,) + tuple(p.grad for p in params)

    return {'matmul_chain': forward_backward}


def numpy_case():
    x, params = _data()

    def forward_backward():
        hs = [x]
        h = x
        for i in range(LAYERS):
            h = h @ params[2 * i] + params[2 * i + 1]
            if i < LAYERS - 1:
                h = np.tanh(h)
            hs.append(h)
        loss = h.sum()
        grads = [None] * len(params)
        gh = np.ones_like(h)
        for i in reversed(range(LAYERS)):
            if i < LAYERS - 1:
                t = hs[i + 1]
                gh = gh * (1 - t * t)
            grads[2 * i] = hs[i].T @ gh
            grads[2 * i + 1] = gh.sum(axis=0)
            if i > 0:
                gh = gh @ params[2 * i].T
        return (np.asarray(loss),) + tuple(grads)

    return {'matmul_chain': forward_backward}
