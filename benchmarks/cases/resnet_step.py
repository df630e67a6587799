"""resnet_step: a training step of a small residual stack (the performance issue's workload).

Four residual blocks, each ``relu(bn2(conv2(relu(bn1(conv1(h))))) + h)``, with 3x3
convolutions (32 channels in and out, pad 1, no bias) and batch normalization in training
mode, on a float32 (32, 32, 16, 16) input; the loss is ``sum(y * r) / 32`` for a fixed random
``r``; MomentumSGD (lr 0.01, momentum 0.9) updates the 8 filters and the 16 scale and shift
vectors. The versions are checked to agree on the loss and the norms of the first filter's
and first scale's gradients. The NumPy version is the same math written by hand with the
activations kept batch-last, ``(c, h, w, n)``: im2col of the padded input and one matrix product per
convolution, the filter gradient and the patch gradients as two more products, col2im by
one strided addition per filter tap, the normalization's statistics and gradient by
reductions over the last three axes, the optimizer in place. The PyTorch twin (timed when
torch is importable) is the same stack of ``nn.Conv2d`` and ``nn.BatchNorm2d`` modules
(momentum 0.1 = 1 - decay), eager, with ``torch.optim.SGD(momentum=0.9)`` (the same update
as MomentumSGD at a fixed learning rate).
"""
import numpy as np

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import optimizers

UNIT = 'ms/step'
SCALE = 1e3
TARGETS = {'resnet_step': None}
N, C, H, BLOCKS, EPS, DECAY = 32, 32, 16, 4, 2e-5, 0.9
LR, MOMENTUM = 0.01, 0.9


def _arrays(dtype=np.float32):
    rs = np.random.default_rng(0)
    x = rs.standard_normal((N, C, H, H)).astype(dtype)
    r = rs.standard_normal((N, C, H, H)).astype(dtype)
    Ws = [(rs.standard_normal((C, C, 3, 3)) / np.sqrt(C * 9)).astype(dtype)
          for _ in range(2 * BLOCKS)]
    return x, r, Ws


class _Block(chainlite.Chain):

    def __init__(self, W1, W2):
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(C, C, 3, pad=1, nobias=True, initialW=W1)
            self.bn1 = L.BatchNormalization(C, decay=DECAY, eps=EPS)
            self.conv2 = L.Convolution2D(C, C, 3, pad=1, nobias=True, initialW=W2)
            self.bn2 = L.BatchNormalization(C, decay=DECAY, eps=EPS)

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(h)) + x)


def chainlite_case(dtype=np.float32):
    # dtype: float32 is what is timed; the tests also run float64, where two steps of the
    # twins agree on any CPU (float32 rounding, which differs with the BLAS kernel, grows
    # along this trajectory).
    x, r, Ws = _arrays(dtype)
    with chainlite.using_config('dtype', np.dtype(dtype)):  # the parameters' dtype
        model = chainlite.ChainList(*[_Block(Ws[2 * i], Ws[2 * i + 1]) for i in range(BLOCKS)])
    opt = optimizers.MomentumSGD(lr=LR, momentum=MOMENTUM)
    opt.setup(model)

    def step():
        model.cleargrads()
        h = x
        for block in model:
            h = block(h)
        loss = F.sum(h * r) / N
        loss.backward()
        # Norms: eight float32 layers deep, elementwise gradients differ from the NumPy
        # version's by summation order beyond the runner's elementwise tolerance.
        grads = tuple(np.linalg.norm(p.grad) for p in (model[0].conv1.W, model[0].bn1.gamma))
        opt.update()
        return (loss.array,) + grads

    return {'resnet_step': step}


def _conv(x, W):
    # x: (c, h, w, n) batch-last; a 3x3 convolution with pad 1. Returns y and the patches.
    c, h, w, n = x.shape
    xp = np.zeros((c, h + 2, w + 2, n), x.dtype)
    xp[:, 1:-1, 1:-1] = x
    win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(1, 2))
    col = win.transpose(0, 4, 5, 1, 2, 3).reshape(c * 9, h * w * n)
    y = W.reshape(W.shape[0], -1) @ col
    return y.reshape(W.shape[0], h, w, n), col


def _conv_backward(gy, col, W):
    o, h, w, n = gy.shape
    c = W.shape[1]
    gy_mat = gy.reshape(o, -1)
    gW = (gy_mat @ col.T).reshape(W.shape)
    gcol = (W.reshape(o, -1).T @ gy_mat).reshape(c, 3, 3, h, w, n)
    gxp = np.zeros((c, h + 2, w + 2, n), gy.dtype)
    for i in range(3):
        for j in range(3):
            gxp[:, i:i + h, j:j + w] += gcol[:, i, j]
    return gxp[:, 1:-1, 1:-1], gW


def _bn(x, gamma, beta, running):
    m = x[0].size
    mean = x.mean(axis=(1, 2, 3))
    xc = x - mean[:, None, None, None]
    var = np.einsum('chwn,chwn->c', xc, xc) / m
    inv_std = 1 / np.sqrt(var + EPS)
    xhat = xc * inv_std[:, None, None, None]
    running[0] *= DECAY
    running[0] += (1 - DECAY) * mean
    running[1] *= DECAY
    running[1] += (1 - DECAY) * var * (m / (m - 1))
    return xhat * gamma[:, None, None, None] + beta[:, None, None, None], xhat, inv_std


def _bn_backward(gy, xhat, inv_std, gamma):
    m = gy[0].size
    gbeta = gy.sum(axis=(1, 2, 3))
    ggamma = np.einsum('chwn,chwn->c', gy, xhat)
    gx = gy - (gbeta / m)[:, None, None, None]
    gx -= xhat * (ggamma / m)[:, None, None, None]
    gx *= (gamma * inv_std)[:, None, None, None]
    return gx, ggamma, gbeta


def numpy_case(dtype=np.float32):
    x, r, Ws = _arrays(dtype)
    xb = np.ascontiguousarray(x.transpose(1, 2, 3, 0))
    rb = np.ascontiguousarray(r.transpose(1, 2, 3, 0))
    params = []
    for W in Ws:
        params += [W.copy(), np.ones(C, dtype), np.zeros(C, dtype)]
    velocities = [np.zeros_like(p) for p in params]
    running = [[np.zeros(C, dtype), np.ones(C, dtype)] for _ in Ws]

    def step():
        h, tape = xb, []
        for b in range(BLOCKS):
            skip = h
            for k in range(2):
                i = 2 * b + k
                W, gamma, beta = params[3 * i:3 * i + 3]
                y, col = _conv(h, W)
                z, xhat, inv_std = _bn(y, gamma, beta, running[i])
                if k == 1:
                    z += skip
                h = np.maximum(z, 0)
                tape.append((col, xhat, inv_std, h))
        loss = np.einsum('chwn,chwn->', h, rb) / N
        grads = [None] * len(params)
        g = rb / N
        for i in reversed(range(2 * BLOCKS)):
            col, xhat, inv_std, out = tape[i]
            g = g * (out > 0)
            if i % 2 == 1:
                g_skip = g
            W, gamma = params[3 * i], params[3 * i + 1]
            g, grads[3 * i + 1], grads[3 * i + 2] = _bn_backward(g, xhat, inv_std, gamma)
            g, grads[3 * i] = _conv_backward(g, col, W)
            if i % 2 == 0:
                g = g + g_skip
        result = (dtype(loss), np.linalg.norm(grads[0]), np.linalg.norm(grads[1]))
        for p, v, gp in zip(params, velocities, grads):
            v *= MOMENTUM
            v -= LR * gp
            p += v
        return result

    return {'resnet_step': step}


def torch_case():
    import torch
    from torch import nn
    x_data, r_data, Ws = _arrays()
    x, r = torch.tensor(x_data), torch.tensor(r_data)
    layers = []
    for W in Ws:
        conv = nn.Conv2d(C, C, 3, padding=1, bias=False)
        with torch.no_grad():
            conv.weight.copy_(torch.tensor(W))
        layers.append((conv, nn.BatchNorm2d(C, eps=EPS, momentum=1 - DECAY)))
    params = [p for conv, bn in layers for p in (conv.weight, bn.weight, bn.bias)]
    opt = torch.optim.SGD(params, lr=LR, momentum=MOMENTUM)

    def step():
        opt.zero_grad(set_to_none=True)
        h = x
        for b in range(BLOCKS):
            (conv1, bn1), (conv2, bn2) = layers[2 * b:2 * b + 2]
            h = torch.relu(bn2(conv2(torch.relu(bn1(conv1(h))))) + h)
        loss = (h * r).sum() / N
        loss.backward()
        grads = tuple(np.linalg.norm(p.grad.numpy()) for p in (params[0], params[1]))
        opt.step()
        return (loss.detach().numpy(),) + grads

    return {'resnet_step': step}
