"""adam_update: one Adam step on the parameters of a 784-1000-1000-10 MLP.

The six parameters (W as Chainer's Linear stores it, out x in, plus biases; 1.8 M floats in
all) have fixed float32 gradients. chainlite: ``optimizers.Adam().setup(model)`` once, then each
iteration is ``optimizer.update()``: the hooks, the per-parameter rules, the bookkeeping. NumPy:
the same arithmetic written by hand, in place, with one preallocated scratch array per
parameter. Both keep the moments m and v between iterations. The optimizer's share of an MLP
training step is this update: the target is 1.10.
"""
import numpy as np

import chainlite
from chainlite import optimizers

from cases import _numpy_adam

SHAPES = ((1000, 784), (1000,), (1000, 1000), (1000,), (10, 1000), (10,))
ALPHA, BETA1, BETA2, EPS = 0.001, 0.9, 0.999, 1e-8
UNIT = 'ms/iter'
SCALE = 1e3
TARGETS = {'adam_update': 1.10}


def _arrays():
    rng = np.random.default_rng(0)
    params = [(rng.standard_normal(s) * 0.05).astype(np.float32) for s in SHAPES]
    grads = [(rng.standard_normal(s) * 0.01).astype(np.float32) for s in SHAPES]
    return params, grads


def chainlite_case():
    params, grads = _arrays()
    model = chainlite.Chain()
    with model.init_scope():
        for i in range(0, len(params), 2):
            layer = chainlite.Link()
            with layer.init_scope():
                layer.W = chainlite.Parameter(params[i])
                layer.b = chainlite.Parameter(params[i + 1])
            setattr(model, 'l%d' % (i // 2 + 1), layer)
    opt = optimizers.Adam(alpha=ALPHA, beta1=BETA1, beta2=BETA2, eps=EPS).setup(model)
    model_params = list(model.params())
    for p, g in zip(model_params, grads):
        p.grad = g

    def step():
        opt.update()
        return tuple(p.array for p in model_params)

    return {'adam_update': step}


def numpy_case():
    params, grads = _arrays()
    adam = _numpy_adam.Adam(params, ALPHA, BETA1, BETA2, EPS)

    def step():
        adam.update(grads)
        return tuple(params)

    return {'adam_update': step}
