"""lstm_lm_step: a truncated-BPTT step of a character-level LSTM language model.

``EmbedID(60, 64)``, ``LSTM(64, 128)`` unrolled over 35 time steps at batch 32 and
``Linear(128, 60)``; the loss is the softmax cross entropy (mean over the batch) summed over
the 35 steps, one backward per 35 steps (truncated BPTT: the graph is cut after it, the LSTM
state carries over to the next call), then ``Adam()``. The versions are checked to agree on
the first call's loss and the norms of the four weight gradients.

The NumPy version is the same math written by hand the way a NumPy programmer would: the
gates in four contiguous blocks, the embedding lookup and the input-to-gate product for all
35 steps at once, one lateral product per step, the output layer and the loss over all steps
in one product, the weight gradients as one product each over all steps, and Adam in place
(``_numpy_adam``, shared by the cases' NumPy versions).

The PyTorch twin (timed when torch is importable) is written like the chainlite code, step
by step in eager mode: ``nn.Embedding``, ``nn.LSTMCell`` called 35 times (not the fused
``nn.LSTM``), ``nn.Linear`` and ``F.cross_entropy`` per step, ``torch.optim.Adam``.
"""
import numpy as np

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import optimizers

from cases import _numpy_adam

UNIT = 'ms/step'
SCALE = 1e3
TARGETS = {'lstm_lm_step': None}
# 35 steps of float32 recurrences summed in different orders.
TOLERANCES = {'lstm_lm_step': (1e-3, 1e-5)}
VOCAB, EMBED, HIDDEN, STEPS, BATCH = 60, 64, 128, 35, 32
ALPHA, BETA1, BETA2, ADAM_EPS = 0.001, 0.9, 0.999, 1e-8


def _arrays():
    # Chainer's gate layout: row 4 * j + k of the LSTM weights is gate k (a, i, f, o) of unit j.
    rs = np.random.default_rng(0)
    seq = rs.integers(0, VOCAB, (STEPS + 1, BATCH)).astype(np.int32)
    E = rs.standard_normal((VOCAB, EMBED)).astype(np.float32)
    Wu = (rs.standard_normal((4 * HIDDEN, EMBED)) / np.sqrt(EMBED)).astype(np.float32)
    bu = np.zeros((HIDDEN, 4), np.float32)
    bu[:, 2] = 1  # forget gates
    Wl = (rs.standard_normal((4 * HIDDEN, HIDDEN)) / np.sqrt(HIDDEN)).astype(np.float32)
    Wo = (rs.standard_normal((VOCAB, HIDDEN)) / np.sqrt(HIDDEN)).astype(np.float32)
    bo = np.zeros(VOCAB, np.float32)
    return seq[:-1], seq[1:], (E, Wu, bu.ravel(), Wl, Wo, bo)


class _LM(chainlite.Chain):

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(VOCAB, EMBED)
            self.lstm = L.LSTM(EMBED, HIDDEN)
            self.out = L.Linear(HIDDEN, VOCAB)


def chainlite_case():
    xs, ts, arrays = _arrays()
    model = _LM()
    params = (model.embed.W, model.lstm.upward.W, model.lstm.upward.b, model.lstm.lateral.W,
              model.out.W, model.out.b)
    for p, a in zip(params, arrays):
        p.array[...] = a
    opt = optimizers.Adam(alpha=ALPHA, beta1=BETA1, beta2=BETA2, eps=ADAM_EPS)
    opt.setup(model)

    def step():
        model.cleargrads()
        loss = 0
        for x, t in zip(xs, ts):
            loss += F.softmax_cross_entropy(model.out(model.lstm(model.embed(x))), t)
        loss.backward()
        loss.unchain_backward()
        result = (loss.array,) + tuple(
            np.linalg.norm(p.grad) for p in (params[0], params[1], params[3], params[4]))
        opt.update()
        return result

    return {'lstm_lm_step': step}


def _sigmoid(x):
    return np.tanh(x * 0.5) * 0.5 + 0.5


def _blocks(a):
    # Chainer's interleaved gate rows (unit-major) to four contiguous gate blocks.
    return np.ascontiguousarray(a.reshape((HIDDEN, 4) + a.shape[1:]).swapaxes(0, 1)).reshape(
        a.shape)


def numpy_case():
    xs, ts, arrays = _arrays()
    E, Wu, bu, Wl, Wo, bo = arrays
    params = [E.copy(), _blocks(Wu), _blocks(bu), _blocks(Wl), Wo.copy(), bo.copy()]
    adam = _numpy_adam.Adam(params, ALPHA, BETA1, BETA2, ADAM_EPS)
    state = {'h': np.zeros((BATCH, HIDDEN), np.float32),
             'c': np.zeros((BATCH, HIDDEN), np.float32)}
    flat_t = ts.ravel()
    rows = np.arange(flat_t.size)
    n = HIDDEN

    def step():
        E, Wu, bu, Wl, Wo, bo = params
        emb = E[xs]                                         # (T, B, EMBED)
        zx = emb.reshape(-1, EMBED) @ Wu.T
        zx += bu
        zx = zx.reshape(STEPS, BATCH, 4 * n)
        hs = np.empty((STEPS + 1, BATCH, n), np.float32)
        cs = np.empty((STEPS + 1, BATCH, n), np.float32)
        gates = np.empty((STEPS, BATCH, 4 * n), np.float32)
        tcs = np.empty((STEPS, BATCH, n), np.float32)
        hs[0], cs[0] = state['h'], state['c']
        for s in range(STEPS):
            z = zx[s] + hs[s] @ Wl.T
            g = gates[s]
            g[:, :n] = np.tanh(z[:, :n])
            g[:, n:] = _sigmoid(z[:, n:])
            a, i, f, o = g[:, :n], g[:, n:2 * n], g[:, 2 * n:3 * n], g[:, 3 * n:]
            cs[s + 1] = a * i + f * cs[s]
            tcs[s] = np.tanh(cs[s + 1])
            hs[s + 1] = o * tcs[s]
        h_all = hs[1:].reshape(-1, n)
        y = h_all @ Wo.T
        y += bo
        m = y.max(axis=1, keepdims=True)
        e = np.exp(y - m)
        ssum = e.sum(axis=1, keepdims=True)
        loss = ((np.log(ssum) + m)[:, 0] - y[rows, flat_t]).sum() / BATCH
        gy = e / ssum
        gy[rows, flat_t] -= 1
        gy /= BATCH
        gWo = gy.T @ h_all
        gbo = gy.sum(axis=0)
        gh_out = (gy @ Wo).reshape(STEPS, BATCH, n)
        gz = np.empty((STEPS, BATCH, 4 * n), np.float32)
        gh = np.zeros((BATCH, n), np.float32)
        gc = np.zeros((BATCH, n), np.float32)
        for s in reversed(range(STEPS)):
            g = gates[s]
            a, i, f, o = g[:, :n], g[:, n:2 * n], g[:, 2 * n:3 * n], g[:, 3 * n:]
            gh = gh + gh_out[s]
            tc = tcs[s]
            gc = gc + gh * o * (1 - tc * tc)
            d = gz[s]
            d[:, :n] = gc * i * (1 - a * a)
            d[:, n:2 * n] = gc * a * i * (1 - i)
            d[:, 2 * n:3 * n] = gc * cs[s] * f * (1 - f)
            d[:, 3 * n:] = gh * tc * o * (1 - o)
            gc = gc * f
            gh = d @ Wl
        gz2 = gz.reshape(-1, 4 * n)
        gWu = gz2.T @ emb.reshape(-1, EMBED)
        gbu = gz2.sum(axis=0)
        gWl = gz2.T @ hs[:-1].reshape(-1, n)
        gemb = gz2 @ Wu
        gE = np.zeros_like(E)
        np.add.at(gE, xs.ravel(), gemb)
        grads = [gE, gWu, gbu, gWl, gWo, gbo]
        state['h'], state['c'] = hs[-1].copy(), cs[-1].copy()
        result = (np.float32(loss),) + tuple(np.linalg.norm(grads[k]) for k in (0, 1, 3, 4))
        adam.update(grads)
        return result

    return {'lstm_lm_step': step}


def torch_case():
    import torch
    from torch import nn
    xs_data, ts_data, arrays = _arrays()
    E, Wu, bu, Wl, Wo, bo = arrays
    xs, ts = torch.tensor(xs_data, dtype=torch.int64), torch.tensor(ts_data, dtype=torch.int64)
    embed, cell, out = nn.Embedding(VOCAB, EMBED), nn.LSTMCell(EMBED, HIDDEN), nn.Linear(
        HIDDEN, VOCAB)
    # torch's gate blocks are (i, f, g, o); Chainer's interleaved gates are (a=g, i, f, o).
    order = [1, 2, 0, 3]

    def to_torch(a):
        return torch.tensor(np.ascontiguousarray(
            a.reshape((HIDDEN, 4) + a.shape[1:])[:, order].swapaxes(0, 1)).reshape(a.shape))

    with torch.no_grad():
        embed.weight.copy_(torch.tensor(E))
        cell.weight_ih.copy_(to_torch(Wu))
        cell.bias_ih.copy_(to_torch(bu))
        cell.weight_hh.copy_(to_torch(Wl))
        cell.bias_hh.zero_()
        out.weight.copy_(torch.tensor(Wo))
        out.bias.copy_(torch.tensor(bo))
    params = [p for m in (embed, cell, out) for p in m.parameters()]
    opt = torch.optim.Adam(params, lr=ALPHA, betas=(BETA1, BETA2), eps=ADAM_EPS)
    state = {'h': torch.zeros(BATCH, HIDDEN), 'c': torch.zeros(BATCH, HIDDEN)}

    def step():
        opt.zero_grad(set_to_none=True)
        h, c = state['h'], state['c']
        loss = 0
        for x, t in zip(xs, ts):
            h, c = cell(embed(x), (h, c))
            loss = loss + nn.functional.cross_entropy(out(h), t)
        loss.backward()
        state['h'], state['c'] = h.detach(), c.detach()
        result = (loss.detach().numpy(),) + tuple(
            np.linalg.norm(p.grad.numpy()) for p in (embed.weight, cell.weight_ih,
                                                     cell.weight_hh, out.weight))
        opt.step()
        return result

    return {'lstm_lm_step': step}
