"""activations: relu, sigmoid and softmax, forward + backward on a float32 (256, 1024) batch.

Each row applies one activation to a Variable, backpropagates a fixed random output
gradient, and returns the output and the input gradient. The NumPy versions do the same
arithmetic by hand (the forward, then the fused backward formula), so the ratio measures
what the graph costs on a layer-sized array.
"""
import numpy as np

import chainlite
from chainlite.functions.activation.relu import relu
from chainlite.functions.activation.sigmoid import sigmoid
from chainlite.functions.activation.softmax import softmax

UNIT = 'us/iter'
SCALE = 1e6
TARGETS = {'activations/relu': 1.5, 'activations/sigmoid': 1.5, 'activations/softmax': 1.5}


def _data():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((256, 1024)).astype(np.float32),
            rng.standard_normal((256, 1024)).astype(np.float32))


def chainlite_case():
    xa, gy = _data()
    x = chainlite.Variable(xa)

    def run(f):
        def step():
            x.cleargrad()
            y = f(x)
            y.grad = gy
            y.backward()
            return y.array, x.grad
        return step

    return {'activations/relu': run(relu), 'activations/sigmoid': run(sigmoid),
            'activations/softmax': run(lambda v: softmax(v, axis=1))}


def numpy_case():
    x, gy = _data()

    def relu_step():
        y = np.maximum(x, 0)
        return y, gy * (y > 0)

    def sigmoid_step():
        y = np.tanh(x * 0.5) * 0.5 + 0.5
        return y, gy * y * (1 - y)

    def softmax_step():
        y = x - x.max(axis=1, keepdims=True)
        np.exp(y, out=y)
        y /= y.sum(axis=1, keepdims=True)
        gx = y * gy
        gx -= y * gx.sum(axis=1, keepdims=True)
        return y, gx

    return {'activations/relu': relu_step, 'activations/sigmoid': sigmoid_step,
            'activations/softmax': softmax_step}
