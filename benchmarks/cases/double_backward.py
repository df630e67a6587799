"""double_backward: a gradient that is itself differentiated.

``y = sin(x)`` on a float32 (1000,) x, ``gx = chainlite.grad([y], [x],
enable_double_backprop=True)`` (the initial gradient of y is ones, as in Chainer), then
``gx.backward()`` with ``gx.grad`` = ones, which leaves ``x.grad = -sin(x)``.
"""
import numpy as np

import chainlite
import chainlite.functions as F

UNIT = 'ms/iter'
SCALE = 1e3
TARGETS = {'double_backward': 6.0}


def _x():
    return np.random.default_rng(0).standard_normal(1000).astype(np.float32)


def chainlite_case():
    x = chainlite.Variable(_x())

    def grad_of_grad():
        x.cleargrad()
        y = F.sin(x)
        gx, = chainlite.grad([y], [x], enable_double_backprop=True)
        gx.grad = np.ones_like(gx.array)
        gx.backward()
        return gx.array, x.grad

    return {'double_backward': grad_of_grad}


def numpy_case():
    x = _x()

    def grad_of_grad():
        np.sin(x)                      # the forward, whose value nothing downstream needs
        gy = np.ones_like(x)
        gx = gy * np.cos(x)            # sin's backward
        ggx = np.ones_like(gx)
        # Backward of gy * cos(x) with respect to x: ggx * gy * -sin(x).
        return gx, ggx * gy * -np.sin(x)

    return {'double_backward': grad_of_grad}
