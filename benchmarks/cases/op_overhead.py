"""op_overhead: the per-op cost of the graph on a tiny array.

1,000 elementwise ops (``y + 0.5``, ``y * 0.9``, sin, exp, tanh, repeated 200 times) on a
float32 (1,) array, so the arithmetic is negligible and what is left is the framework's cost
per op. Row ``op_overhead`` is forward + backward; ``op_overhead/forward`` is the forward
alone under ``no_backprop_mode``.
"""
import numpy as np

import chainlite
import chainlite.functions as F

N_OPS = 1000
UNIT = 'us/op'
SCALE = 1e6 / N_OPS
TARGETS = {'op_overhead': 5.0, 'op_overhead/forward': 3.5}


def _chain(y):
    for _ in range(N_OPS // 5):
        y = y + 0.5
        y = y * 0.9
        y = F.sin(y)
        y = F.exp(y)
        y = F.tanh(y)
    return y


def chainlite_case():
    x = chainlite.Variable(np.array([0.5], np.float32))

    def forward_backward():
        x.cleargrad()
        y = _chain(x)
        y.backward()
        return y.array, x.grad

    def forward():
        with chainlite.no_backprop_mode():
            return _chain(x).array,

    return {'op_overhead': forward_backward, 'op_overhead/forward': forward}


def numpy_case():
    x = np.array([0.5], np.float32)
    add, mul, sin, cos, exp, tanh = np.add, np.multiply, np.sin, np.cos, np.exp, np.tanh

    def forward_backward():
        # Keep exactly what the backward needs: sin's input, exp's and tanh's outputs.
        kept = []
        y = x
        for _ in range(N_OPS // 5):
            a = mul(add(y, 0.5), 0.9)
            e = exp(sin(a))
            y = tanh(e)
            kept.append((a, e, y))
        gy = np.ones_like(y)
        for a, e, t in reversed(kept):
            gy = mul(gy, 1 - t * t)
            gy = mul(gy, e)
            gy = mul(gy, cos(a))
            gy = mul(gy, 0.9)
            # y + 0.5 passes the gradient through unchanged.
        return y, gy

    def forward():
        y = x
        for _ in range(N_OPS // 5):
            y = tanh(exp(sin(mul(add(y, 0.5), 0.9))))
        return y,

    return {'op_overhead': forward_backward, 'op_overhead/forward': forward}
