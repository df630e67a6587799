"""array_ops: large-array manipulation, where the cost is memory traffic, not Python.

Forward and backward of ``get_item`` (a basic slice and an integer-array gather), ``concat``
and ``transpose`` on float32 arrays of 4 MB. The NumPy versions do the same work by hand:
the view or copy NumPy would make, and the scatter or slice that the gradient needs. A ratio
near 1.0 means chainlite copies no more than NumPy would.
"""
import numpy as np

import chainlite
import chainlite.functions as F

UNIT = 'ms/iter'
SCALE = 1e3
TARGETS = {'get_item/slice': None, 'get_item/gather': None, 'concat': None,
           'transpose': None}
SHAPE = (1024, 1024)


def _arrays():
    rs = np.random.default_rng(0)
    a = rs.standard_normal(SHAPE).astype(np.float32)
    b = rs.standard_normal(SHAPE).astype(np.float32)
    idx = rs.integers(0, SHAPE[0], size=2048)
    return a, b, idx


def chainlite_case():
    a, b, idx = _arrays()
    x = chainlite.Variable(a)
    y = chainlite.Variable(b)

    def run(f, *vs):
        for v in vs:
            v.cleargrad()
        out = f()
        out.grad = np.ones_like(out.array)
        out.backward()
        return (out.array,) + tuple(v.grad for v in vs)

    return {
        'get_item/slice': lambda: run(lambda: x[:, 100:900:2], x),
        'get_item/gather': lambda: run(lambda: F.get_item(x, idx), x),
        'concat': lambda: run(lambda: F.concat((x, y), axis=0), x, y),
        'transpose': lambda: run(lambda: F.transpose(x) * 1.0, x),
    }


def numpy_case():
    a, b, idx = _arrays()
    # Gradients live until the next iteration clears them, as they do on Variables (cleargrad):
    # the same memory lifetime, so the same allocation pattern.
    grads = {}

    def sliced():
        grads.clear()
        out = a[:, 100:900:2]
        gx = np.zeros_like(a)
        gx[:, 100:900:2] = np.ones_like(out)
        grads['x'] = gx
        return out, gx

    def gather():
        grads.clear()
        out = a[idx]
        gx = np.zeros_like(a)
        np.add.at(gx, idx, np.ones_like(out))   # repeated rows must add up
        grads['x'] = gx
        return out, gx

    def concat():
        grads.clear()
        out = np.concatenate((a, b), axis=0)
        g = np.ones_like(out)
        grads['x'], grads['y'] = g[:SHAPE[0]], g[SHAPE[0]:]
        return out, grads['x'], grads['y']

    def transpose():
        grads.clear()
        out = a.T * 1.0
        g = np.ones_like(out)
        grads['x'] = (g * 1.0).T
        return out, grads['x']

    return {'get_item/slice': sliced, 'get_item/gather': gather, 'concat': concat,
            'transpose': transpose}
