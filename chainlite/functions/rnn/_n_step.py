"""The layer and direction loop shared by the n_step_* recurrent functions.

Each layer and direction first projects the inputs of all time steps at once (one matmul on
the steps concatenated along the batch axis), then runs the recurrence step by step. Batches
shrink over time (sequences sorted by decreasing length): at each step only the first rows of
the state are updated and the others are carried over, as Chainer does.
"""
from __future__ import annotations

from typing import Any

import numpy

from chainlite import backend
from chainlite import configuration
from chainlite.functions.activation import tanh
from chainlite.functions.array import concat
from chainlite.functions.array import separate
from chainlite.functions.array import split_axis
from chainlite.functions.array import stack
from chainlite.functions.math import matmul
from chainlite.utils import type_check


def fail(name, expect, actual):
    raise type_check.InvalidType(
        expect, actual, msg='Invalid operation is performed in: %s (Forward)\n\n'
                            'Expect: %s\nActual: %s' % (name, expect, actual))


def _check_array(name, label, a, shape, dtype):
    if a.dtype != dtype:
        fail(name, '%s.dtype == %s' % (label, dtype), '%s != %s' % (a.dtype, dtype))
    if tuple(a.shape) != tuple(shape):
        fail(name, '%s.shape == %s' % (label, tuple(shape)), '%s != %s'
             % (tuple(a.shape), tuple(shape)))


def check_inputs(name, n_layers, hx, cx, ws, bs, xs, n_weights, directions):
    """Validates the arguments; returns the number of hidden units."""
    if not isinstance(n_layers, (int, numpy.integer)) or n_layers < 1:
        raise ValueError('%s: n_layers must be a positive int, got %r' % (name, n_layers))
    if len(xs) == 0:
        fail(name, 'len(xs) > 0', '0 == 0')
    n_cells = n_layers * directions
    for label, params in (('ws', ws), ('bs', bs)):
        if len(params) != n_cells:
            fail(name, 'len(%s) == %d' % (label, n_cells), '%d != %d' % (len(params), n_cells))
        for k, p in enumerate(params):
            if len(p) != n_weights:
                fail(name, 'len(%s[%d]) == %d' % (label, k, n_weights),
                     '%d != %d' % (len(p), n_weights))
    x0 = xs[0]
    dtype = x0.dtype
    if dtype.kind != 'f':
        fail(name, 'xs[0].dtype.kind == f', '%s != f' % dtype.kind)
    if x0.ndim != 2:
        fail(name, 'xs[0].ndim == 2', '%d != 2' % x0.ndim)
    in_size = x0.shape[1]
    for t, x in enumerate(xs):
        if x.ndim != 2:
            fail(name, 'xs[%d].ndim == 2' % t, '%d != 2' % x.ndim)
        _check_array(name, 'xs[%d]' % t, x, (x.shape[0], in_size), dtype)
        if t and x.shape[0] > xs[t - 1].shape[0]:
            fail(name, 'xs[%d].shape[0] >= xs[%d].shape[0]' % (t - 1, t),
                 '%d < %d' % (xs[t - 1].shape[0], x.shape[0]))
    w0 = ws[0][0]
    if w0.ndim != 2:
        fail(name, 'ws[0][0].ndim == 2', '%d != 2' % w0.ndim)
    units = w0.shape[0]
    half = n_weights // 2
    for k in range(n_cells):
        layer_in = in_size if k < directions else units * directions
        for j in range(n_weights):
            _check_array(name, 'ws[%d][%d]' % (k, j), ws[k][j],
                         (units, layer_in if j < half else units), dtype)
            _check_array(name, 'bs[%d][%d]' % (k, j), bs[k][j], (units,), dtype)
    for label, state in (('hx', hx), ('cx', cx)):
        if state is not None:
            _check_array(name, label, state, (n_cells, x0.shape[0], units), dtype)
    return units


def sigmoid(x):
    """The logistic function of a Variable, through tanh (no overflow for large -x)."""
    return tanh.tanh(x * 0.5) * 0.5 + 0.5


def dropout(x, ratio):
    """Scales ``x`` by a fresh random keep-mask (of x's array module) in training mode."""
    if ratio == 0 or not configuration.config.train:
        return x
    xp = backend.get_array_module(x.array)
    keep = xp.random.rand(*x.shape) >= ratio
    # A constant mask: the product stays differentiable to any order.
    return x * (keep * (1 / (1 - ratio))).astype(x.dtype)


def _states(state, n_cells, shape, dtype, xp):
    if state is None:
        return [xp.zeros(shape, dtype)] * n_cells
    return list(separate.separate(state, 0)) if n_cells > 1 else [state[0]]


def run(name, cell, n_weights, n_layers, dropout_ratio, hx, cx, ws, bs, xs, directions,
        use_cell=False):
    """Runs a stacked, optionally bidirectional, recurrence.

    ``cell(w, b)`` prepares one layer and direction from its weights and biases; it returns
    ``(Wx, bx, step)``: the input projection ``xs @ Wx.T + bx`` and
    ``step(p, h, c) -> (h, c)`` for one time step with projected input ``p`` and the first
    ``len(p)`` rows of the state ``h`` (``c``, the whole cell state, for LSTM only).

    Returns ``(hy, cy, ys)``, with ``cy`` None unless ``use_cell``.
    """
    if not 0 <= dropout_ratio < 1:
        raise ValueError('%s: dropout_ratio must be in [0, 1), got %r' % (name, dropout_ratio))
    xs = list(xs)
    units = check_inputs(name, n_layers, hx, cx if use_cell else None, ws, bs, xs, n_weights,
                         directions)
    n_cells = n_layers * directions
    xp = backend.get_array_module(getattr(xs[0], 'array', xs[0]))
    dtype = xs[0].dtype
    state_shape = (xs[0].shape[0], units)
    hs = _states(hx, n_cells, state_shape, dtype, xp)
    cs = _states(cx, n_cells, state_shape, dtype, xp) if use_cell else [None] * n_cells
    batches = [x.shape[0] for x in xs]
    cuts = numpy.cumsum(batches[:-1]).tolist()
    x_all = concat.concat(xs, axis=0) if len(xs) > 1 else xs[0]

    hy, cy = [], []
    for layer in range(n_layers):
        outs = []
        for d in range(directions):
            k = layer * directions + d
            Wx, bx, step = cell(ws[k], bs[k])
            inp = x_all if layer == 0 else dropout(x_all, dropout_ratio)
            p_all = matmul.matmul(inp, Wx, transb=True) + bx
            ps = split_axis.split_axis(p_all, cuts, 0) if cuts else (p_all,)
            h, c = hs[k], cs[k]
            ys: list[Any] = [None] * len(ps)
            for t in (range(len(ps)) if d == 0 else reversed(range(len(ps)))):
                p = ps[t]
                batch = p.shape[0]
                if batch < h.shape[0]:
                    h_now, h_rest = split_axis.split_axis(h, [batch], 0)
                    ys[t], c = step(p, h_now, c)
                    h = concat.concat([ys[t], h_rest], axis=0)
                else:
                    ys[t], c = step(p, h, c)
                    h = ys[t]
            hy.append(h)
            cy.append(c)
            outs.append(ys)
        if directions == 1:
            ys = outs[0]
            if layer + 1 < n_layers:
                x_all = concat.concat(ys, axis=0) if len(ys) > 1 else ys[0]
        elif layer + 1 < n_layers:
            x_all = concat.concat(
                [concat.concat(o, axis=0) if len(o) > 1 else o[0] for o in outs], axis=1)
        else:
            ys = [concat.concat(pair, axis=1) for pair in zip(*outs)]
    hy_all = stack.stack(hy)
    cy_all = stack.stack(cy) if use_cell else None
    return hy_all, cy_all, tuple(ys)
