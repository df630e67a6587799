"""mlp_step: an Adam training step of an MLP 784-1000-1000-10 (ReLU), batch 100.

``softmax_cross_entropy(l3(relu(l2(relu(l1(x))))), t)`` on float32 data, then backward and
``Adam()`` (Chainer's defaults). The versions are checked to agree on the loss and the norms
of the three weight gradients of the first step. The NumPy version is the same math by hand:
three products forward, the softmax gradient, two products per layer backward, Adam in place.
The PyTorch twin (timed when torch is importable) is ``nn.Linear`` layers, ``F.cross_entropy``
and ``torch.optim.Adam``.

Row ``mlp_step_mixed16`` is the same step under ``chainlite.config.dtype = 'mixed16'`` (Chainer's
mixed precision): float16 weights and activations, float32 master weights kept by the update
rules (``use_fp32_update``), a static loss scale of 128. The NumPy version stores the same
float16 arrays and, as chainlite does, multiplies float16 matrices in float32 (NumPy has no
float16 BLAS: its own float16 matmul is a hundred times slower). Comparing the row with
``mlp_step`` shows what mixed16 costs or buys on this CPU; it has no torch twin.
"""
import numpy as np

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import optimizers

from cases import _numpy_adam

UNIT = 'ms/step'
SCALE = 1e3
TARGETS = {'mlp_step': None, 'mlp_step_mixed16': None}
# float16 activations: the checks compare float16 rounding done in two orders.
TOLERANCES = {'mlp_step_mixed16': (2e-2, 1e-3)}
SIZES = (784, 1000, 1000, 10)
BATCH, LOSS_SCALE = 100, 128.0
ALPHA, BETA1, BETA2, ADAM_EPS = 0.001, 0.9, 0.999, 1e-8


def _arrays():
    rs = np.random.default_rng(0)
    x = rs.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    t = rs.integers(0, SIZES[-1], BATCH).astype(np.int32)
    Ws = [(rs.standard_normal((o, i)) / np.sqrt(i)).astype(np.float32)
          for i, o in zip(SIZES[:-1], SIZES[1:])]
    bs = [(0.1 * rs.standard_normal(o)).astype(np.float32) for o in SIZES[1:]]
    return x, t, Ws, bs


def _chainlite_step(mixed16):
    x, t, Ws, bs = _arrays()
    dtype = chainlite.mixed16 if mixed16 else np.float32
    with chainlite.using_config('dtype', dtype):
        model = chainlite.Sequential(*[L.Linear(W.shape[1], W.shape[0]) for W in Ws])
    for link, W, b in zip(model, Ws, bs):
        link.W.array[...] = W
        link.b.array[...] = b
    if mixed16:
        x = x.astype(np.float16)
    opt = optimizers.Adam(alpha=ALPHA, beta1=BETA1, beta2=BETA2, eps=ADAM_EPS)
    opt.setup(model)
    if mixed16:
        opt.loss_scaling(scale=LOSS_SCALE)
        for param in model.params():
            param.update_rule.use_fp32_update()

    def step():
        model.cleargrads()
        h = x
        for k, link in enumerate(model):
            h = link(h)
            if k < len(Ws) - 1:
                h = F.relu(h)
        loss = F.softmax_cross_entropy(h, t)
        loss.backward(loss_scale=LOSS_SCALE if mixed16 else None)
        scale = LOSS_SCALE if mixed16 else 1.0
        result = (np.float32(loss.array),) + tuple(
            np.linalg.norm(link.W.grad.astype(np.float32)) / scale for link in model)
        opt.update()
        return result

    return step


def chainlite_case():
    return {'mlp_step': _chainlite_step(False), 'mlp_step_mixed16': _chainlite_step(True)}


def _numpy_step(mixed16):
    x, t, Ws, bs = _arrays()
    master = [p for W, b in zip(Ws, bs) for p in (W, b)]
    dtype = np.float16 if mixed16 else np.float32
    # float32: the master weights are the weights.
    params = [p.astype(dtype) for p in master] if mixed16 else master
    adam = _numpy_adam.Adam(master, ALPHA, BETA1, BETA2, ADAM_EPS)
    x = x.astype(dtype)
    rows = np.arange(BATCH)
    scale = LOSS_SCALE if mixed16 else 1.0

    def mm(a, b):
        # float16 operands multiplied in float32, as chainlite does.
        if a.dtype == np.float16:
            return (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
        return a @ b

    def step():
        hs = [x]
        for k in range(3):
            W, b = params[2 * k], params[2 * k + 1]
            y = mm(hs[-1], W.T)
            y += b
            hs.append(np.maximum(y, 0, out=y) if k < 2 else y)
        y = hs[-1].astype(np.float32)
        m = y.max(axis=1, keepdims=True)
        e = np.exp(y - m)
        s = e.sum(axis=1, keepdims=True)
        loss = ((np.log(s) + m)[:, 0] - y[rows, t]).mean()
        g = e / s
        g[rows, t] -= 1
        g *= scale / BATCH
        g = g.astype(dtype)
        grads = [None] * 6
        for k in reversed(range(3)):
            W = params[2 * k]
            grads[2 * k] = mm(g.T, hs[k])
            grads[2 * k + 1] = g.sum(axis=0, dtype=np.float32).astype(dtype, copy=False)
            if k:
                g = mm(g, W)
                g *= hs[k] > 0
        result = (np.float32(loss),) + tuple(
            np.linalg.norm(grads[2 * k].astype(np.float32)) / scale for k in range(3))
        if mixed16:
            # The float32 master weights take the unscaled gradients; the float16 weights
            # are their copies.
            adam.update([g.astype(np.float32) / scale for g in grads])
            for p, p32 in zip(params, master):
                p[...] = p32
        else:
            adam.update(grads)
        return result

    return step


def numpy_case():
    return {'mlp_step': _numpy_step(False), 'mlp_step_mixed16': _numpy_step(True)}


def torch_case():
    import torch
    from torch import nn
    x_data, t_data, Ws, bs = _arrays()
    x, t = torch.tensor(x_data), torch.tensor(t_data, dtype=torch.int64)
    layers = []
    for W, b in zip(Ws, bs):
        layer = nn.Linear(W.shape[1], W.shape[0])
        with torch.no_grad():
            layer.weight.copy_(torch.tensor(W))
            layer.bias.copy_(torch.tensor(b))
        layers.append(layer)
    opt = torch.optim.Adam([p for layer in layers for p in layer.parameters()], lr=ALPHA,
                           betas=(BETA1, BETA2), eps=ADAM_EPS)

    def step():
        opt.zero_grad(set_to_none=True)
        h = x
        for k, layer in enumerate(layers):
            h = layer(h)
            if k < len(layers) - 1:
                h = torch.relu(h)
        loss = nn.functional.cross_entropy(h, t)
        loss.backward()
        result = (loss.detach().numpy(),) + tuple(
            np.linalg.norm(layer.weight.grad.numpy()) for layer in layers)
        opt.step()
        return result

    return {'mlp_step': step}
