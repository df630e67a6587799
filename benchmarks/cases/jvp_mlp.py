"""jvp_mlp: a forward-mode Jacobian-vector product against the plain forward pass.

The function is a 3-layer tanh MLP, 256-256-256-256, written with ``F.linear`` and ``F.tanh``
on a float32 (64, 256) batch; the tangent is a random direction for the input batch (the
weights are constants). ``chainlite.forward_mode.jvp`` returns the output and ``J v``.

The twist: unlike the other cases, the reference here is not hand-written NumPy but
chainlite's own plain forward pass (in ``no_backprop_mode``), because the issue's target is
"jvp of an MLP forward within 3x the forward pass's time". The reference closure also
returns ``J v`` so that the two versions can be compared, but that one is computed once, at
setup, with hand-written NumPy tangent rules, and is not part of the timed work.
"""
import numpy as np

import chainlite
import chainlite.functions as F
from chainlite import forward_mode

UNIT = 'ms/iter'
SCALE = 1e3
TARGETS = {'jvp_mlp': 3.0}
_WIDTH = 256
_BATCH = 64


def _data():
    rng = np.random.default_rng(0)
    params = []
    for _ in range(3):
        W = (rng.standard_normal((_WIDTH, _WIDTH)) / np.sqrt(_WIDTH)).astype(np.float32)
        b = (rng.standard_normal(_WIDTH) * 0.1).astype(np.float32)
        params.append((W, b))
    x = rng.standard_normal((_BATCH, _WIDTH)).astype(np.float32)
    v = rng.standard_normal((_BATCH, _WIDTH)).astype(np.float32)
    return params, x, v


def _mlp(params):
    def f(x):
        h = x
        for W, b in params:
            h = F.tanh(F.linear(h, W, b))
        return h
    return f


def chainlite_case():
    params, x, v = _data()
    f = _mlp(params)

    def jvp():
        y, jv = forward_mode.jvp(f, (x,), (v,))
        return y, jv

    return {'jvp_mlp': jvp}


def numpy_case():
    params, x, v = _data()
    f = _mlp(params)
    # J v by hand, once: the tangent of tanh(h W^T + b) is (1 - y^2) * (dh W^T).
    h, dh = x, v
    for W, b in params:
        h = np.tanh(h @ W.T + b)
        dh = (1 - h * h) * (dh @ W.T)

    def forward():
        with chainlite.no_backprop_mode():
            y = f(x)
        return y.array, dh

    return {'jvp_mlp': forward}
