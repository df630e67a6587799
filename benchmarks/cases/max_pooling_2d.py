"""max_pooling_2d: forward and backward of 2x2 max pooling (stride 2) on a CNN-sized batch.

A float32 (64, 20, 24, 24) input, as after a first convolution on 28x28 images. The NumPy
version pools by hand over the four strided quarter views ``x[:, :, i::2, j::2]``, keeping the
running maximum and the index of the first maximum of each window, then routes the output
gradient back through the index, one quarter view at a time. A ratio near 1.0 means the
framework adds nothing to that work.
"""
import numpy as np

import chainlite
from chainlite.functions.pooling.max_pooling_2d import max_pooling_2d

UNIT = 'ms/iter'
SCALE = 1e3
TARGETS = {'max_pooling_2d': None}
SHAPE = (64, 20, 24, 24)


def _arrays():
    rs = np.random.default_rng(0)
    x = rs.standard_normal(SHAPE).astype(np.float32)
    gy = rs.standard_normal(SHAPE[:2] + (SHAPE[2] // 2, SHAPE[3] // 2)).astype(np.float32)
    return x, gy


def chainlite_case():
    x_data, gy = _arrays()
    x = chainlite.Variable(x_data)

    def pool():
        x.cleargrad()
        y = max_pooling_2d(x, 2)
        y.grad = gy
        y.backward()
        return y.array, x.grad

    return {'max_pooling_2d': pool}


def numpy_case():
    x, gy = _arrays()
    offsets = [(0, 0), (0, 1), (1, 0), (1, 1)]
    grads = {}

    def pool():
        grads.clear()
        views = [x[:, :, i::2, j::2] for i, j in offsets]
        y = views[0].copy()
        index = np.zeros(y.shape, np.int8)
        for k, v in enumerate(views[1:], 1):
            better = v > y                      # strictly: ties keep the first maximum
            np.maximum(y, v, out=y)
            np.maximum(index, better * np.int8(k), out=index)
        gx = np.zeros_like(x)
        for k, (i, j) in enumerate(offsets):
            np.multiply(gy, index == k, out=gx[:, :, i::2, j::2])
        grads['x'] = gx
        return y, gx

    return {'max_pooling_2d': pool}
