"""deep_chain: a graph 200,000 functions deep, built and backpropagated.

``y = y * 1.0001 + 0.0`` 100,000 times from a float32 (1,) Variable, then ``y.backward()``.
It checks that backward walks the graph without recursion and measures the cost per node of
building, walking and freeing a long graph.
"""
import numpy as np

import chainlite

N = 100_000
UNIT = 's'
SCALE = 1.0
TARGETS = {'deep_chain': 8.0}


def chainlite_case():
    def build_and_backward():
        x = chainlite.Variable(np.array([1.0], np.float32))
        y = x
        for _ in range(N):
            y = y * 1.0001 + 0.0
        y.backward()
        return y.array, x.grad

    return {'deep_chain': build_and_backward}


def numpy_case():
    mul, add = np.multiply, np.add

    def build_and_backward():
        y = np.array([1.0], np.float32)
        for _ in range(N):
            y = add(mul(y, 1.0001), 0.0)
        gy = np.ones_like(y)
        for _ in range(N):
            # The add passes gy through; the multiply scales it.
            gy = mul(gy, 1.0001)
        return y, gy

    return {'deep_chain': build_and_backward}
