"""n_step_lstm and n_step_bilstm against a loop-by-loop NumPy LSTM."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.rnn.n_step_lstm import n_step_bilstm
from chainlite.functions.rnn.n_step_lstm import n_step_lstm
from chainlite.utils import type_check

IN, UNITS = 3, 2
# (n_layers, batch sizes per time step)
CASES = [(1, (3,)), (1, (3, 3)), (2, (3, 2, 1)), (2, (2, 2, 1))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}
FUNCS = {1: n_step_lstm, 2: n_step_bilstm}


def _uniform(shape, dtype, rs):
    # Smooth everywhere (matmuls, tanh, sigmoid): any values will do.
    return rs.uniform(-1, 1, shape).astype(dtype)


def _inputs(n_layers, batches, directions, dtype=numpy.float64, seed=0):
    rs = numpy.random.RandomState(seed)
    n = n_layers * directions
    hx = _uniform((n, batches[0], UNITS), dtype, rs)
    cx = _uniform((n, batches[0], UNITS), dtype, rs)
    xs = [_uniform((b, IN), dtype, rs) for b in batches]
    ws, bs = [], []
    for k in range(n):
        layer_in = IN if k < directions else UNITS * directions
        ws.append([_uniform((UNITS, layer_in if j < 4 else UNITS), dtype, rs)
                   for j in range(8)])
        bs.append([_uniform((UNITS,), dtype, rs) for _ in range(8)])
    return hx, cx, ws, bs, xs


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _reference(n_layers, hx, cx, ws, bs, xs, directions, masks=None):
    # Straight loops in float64; masks[(layer, d)] multiplies that layer's stacked inputs.
    f64 = numpy.float64
    hy, cy = hx.astype(f64), cx.astype(f64)
    inputs = [x.astype(f64) for x in xs]
    steps = len(xs)
    for layer in range(n_layers):
        outs = []
        for d in range(directions):
            k = layer * directions + d
            w = [a.astype(f64) for a in ws[k]]
            b = [a.astype(f64) for a in bs[k]]
            layer_in = inputs
            if masks is not None and layer > 0:
                stacked = numpy.concatenate(inputs) * masks[layer, d]
                layer_in = numpy.split(stacked, numpy.cumsum([len(x) for x in xs])[:-1])
            h, c = hy[k], cy[k]
            ys = [None] * steps
            for t in (range(steps) if d == 0 else reversed(range(steps))):
                x = layer_in[t]
                n = len(x)
                hp = h[:n]
                i = _sigmoid(x @ w[0].T + hp @ w[4].T + b[0] + b[4])
                f = _sigmoid(x @ w[1].T + hp @ w[5].T + b[1] + b[5])
                a = numpy.tanh(x @ w[2].T + hp @ w[6].T + b[2] + b[6])
                o = _sigmoid(x @ w[3].T + hp @ w[7].T + b[3] + b[7])
                c[:n] = f * c[:n] + i * a
                h[:n] = o * numpy.tanh(c[:n])
                ys[t] = h[:n].copy()
            outs.append(ys)
        inputs = [numpy.concatenate(step, axis=1) for step in zip(*outs)]
    return hy, cy, inputs


def _flat(hx, cx, ws, bs, xs):
    return [hx, cx] + list(xs) + [a for w in ws for a in w] + [a for b in bs for a in b]


def _unflat(args, n_cells, steps):
    hx, cx = args[:2]
    xs = list(args[2:2 + steps])
    rest = args[2 + steps:]
    ws = [list(rest[8 * k:8 * k + 8]) for k in range(n_cells)]
    rest = rest[8 * n_cells:]
    bs = [list(rest[8 * k:8 * k + 8]) for k in range(n_cells)]
    return hx, cx, ws, bs, xs


@pytest.mark.parametrize('directions', [1, 2])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('n_layers, batches', CASES)
def test_forward(n_layers, batches, dtype, directions):
    hx, cx, ws, bs, xs = _inputs(n_layers, batches, directions, dtype)
    hy, cy, ys = FUNCS[directions](n_layers, 0.0, hx, cx, ws, bs, xs)
    hy_ref, cy_ref, ys_ref = _reference(n_layers, hx, cx, ws, bs, xs, directions)
    assert isinstance(ys, tuple) and len(ys) == len(xs)
    assert hy.dtype == dtype and cy.dtype == dtype and all(y.dtype == dtype for y in ys)
    assert hy.shape == hx.shape and cy.shape == cx.shape
    numpy.testing.assert_allclose(hy.array, hy_ref, **TOL[dtype])
    numpy.testing.assert_allclose(cy.array, cy_ref, **TOL[dtype])
    for y, y_ref, b in zip(ys, ys_ref, batches):
        assert y.shape == (b, UNITS * directions)
        numpy.testing.assert_allclose(y.array, y_ref, **TOL[dtype])


@pytest.mark.parametrize('directions', [1, 2])
def test_none_states_are_zeros(directions):
    hx, cx, ws, bs, xs = _inputs(2, (3, 2, 1), directions)
    zeros = numpy.zeros_like(hx)
    func = FUNCS[directions]
    expected = func(2, 0.0, zeros, zeros, ws, bs, xs)
    for h, c in ((None, None), (None, zeros), (zeros, None)):
        got = func(2, 0.0, h, c, ws, bs, xs)
        numpy.testing.assert_allclose(got[0].array, expected[0].array, rtol=1e-14)
        numpy.testing.assert_allclose(got[1].array, expected[1].array, rtol=1e-14)
        for y, y_ref in zip(got[2], expected[2]):
            numpy.testing.assert_allclose(y.array, y_ref.array, rtol=1e-14)


def _checked(n_layers, batches, directions, with_states):
    n_cells, steps = n_layers * directions, len(batches)
    func = FUNCS[directions]

    def f(*args):
        hx, cx, ws, bs, xs = _unflat(args, n_cells, steps)
        if not with_states:
            hx = cx = None
        hy, cy, ys = func(n_layers, 0.0, hx, cx, ws, bs, xs)
        return (hy, cy) + ys

    inputs = _inputs(n_layers, batches, directions)
    ref = _reference(n_layers, *inputs, directions)
    args = _flat(*inputs)
    if not with_states:
        args[0] = args[0][:, :, :0].copy()  # unused placeholders: not differentiated
        args[1] = args[1][:, :, :0].copy()
    rs = numpy.random.RandomState(7)
    gys = [rs.uniform(-1, 1, ref[0].shape), rs.uniform(-1, 1, ref[1].shape)]
    gys += [rs.uniform(-1, 1, y.shape) for y in ref[2]]
    return f, args, gys, rs


@pytest.mark.parametrize('with_states', [True, False])
@pytest.mark.parametrize('directions', [1, 2])
@pytest.mark.parametrize('n_layers, batches', [(1, (2, 2)), (2, (3, 2, 1))])
def test_backward(n_layers, batches, directions, with_states):
    f, args, gys, _ = _checked(n_layers, batches, directions, with_states)
    gradient_check.check_backward(f, tuple(args), tuple(gys))


@pytest.mark.parametrize('directions', [1, 2])
@pytest.mark.parametrize('n_layers, batches', [(1, (2, 2)), (2, (3, 2, 1))])
def test_double_backward(n_layers, batches, directions):
    f, args, gys, rs = _checked(n_layers, batches, directions, True)
    ggs = tuple(rs.uniform(-1, 1, a.shape) for a in args)
    gradient_check.check_double_backward(f, tuple(args), tuple(gys), ggs)


@pytest.mark.parametrize('directions', [1, 2])
def test_float32_grads(directions):
    hx, cx, ws, bs, xs = _inputs(2, (3, 2), directions, numpy.float32)
    hx, cx = chainlite.Variable(hx), chainlite.Variable(cx)
    ws = [[chainlite.Variable(a) for a in w] for w in ws]
    bs = [[chainlite.Variable(a) for a in b] for b in bs]
    xs = [chainlite.Variable(x) for x in xs]
    hy, cy, ys = FUNCS[directions](2, 0.0, hx, cx, ws, bs, xs)
    loss = chainlite.functions.sum(hy) + chainlite.functions.sum(cy * cy)
    for y in ys:
        loss = loss + chainlite.functions.sum(y)
    loss.backward()
    for v in [hx, cx] + xs + [a for w in ws for a in w] + [a for b in bs for a in b]:
        assert v.grad is not None and v.grad.dtype == numpy.float32


def _dropout_masks(n_layers, batches, directions, ratio, seed):
    # The draws n_step_* makes: per layer > 0 and direction, one mask over the stacked steps.
    rs = numpy.random.RandomState(seed)
    masks = {}
    for layer in range(1, n_layers):
        for d in range(directions):
            keep = rs.rand(sum(batches), UNITS * directions) >= ratio
            masks[layer, d] = keep / (1 - ratio)
    return masks


@pytest.mark.parametrize('directions', [1, 2])
def test_dropout_between_layers(directions):
    batches, ratio = (3, 2, 1), 0.4
    hx, cx, ws, bs, xs = _inputs(3, batches, directions)
    masks = _dropout_masks(3, batches, directions, ratio, seed=3)
    numpy.random.seed(3)
    hy, cy, ys = FUNCS[directions](3, ratio, hx, cx, ws, bs, xs)
    hy_ref, cy_ref, ys_ref = _reference(3, hx, cx, ws, bs, xs, directions, masks)
    numpy.testing.assert_allclose(hy.array, hy_ref, rtol=1e-12, atol=1e-12)
    numpy.testing.assert_allclose(cy.array, cy_ref, rtol=1e-12, atol=1e-12)
    for y, y_ref in zip(ys, ys_ref):
        numpy.testing.assert_allclose(y.array, y_ref, rtol=1e-12, atol=1e-12)
    # Something was dropped: the plain result differs.
    plain = _reference(3, hx, cx, ws, bs, xs, directions)
    assert not numpy.allclose(hy.array, plain[0])


@pytest.mark.parametrize('directions', [1, 2])
def test_no_dropout_at_test_time_or_in_one_layer(directions):
    hx, cx, ws, bs, xs = _inputs(2, (3, 2), directions)
    hy_ref = _reference(2, hx, cx, ws, bs, xs, directions)[0]
    with chainlite.using_config('train', False):
        hy = FUNCS[directions](2, 0.5, hx, cx, ws, bs, xs)[0]
    numpy.testing.assert_allclose(hy.array, hy_ref, rtol=1e-12)
    # The input of the first layer is never dropped.
    hx, cx, ws, bs, xs = _inputs(1, (3, 2), directions)
    hy = FUNCS[directions](1, 0.5, hx, cx, ws, bs, xs)[0]
    numpy.testing.assert_allclose(hy.array, _reference(1, hx, cx, ws, bs, xs, directions)[0],
                                  rtol=1e-12)


def test_dropout_backward():
    # Reseeding inside f gives every evaluation the same masks.
    n_layers, batches = 2, (2, 1)
    _, args, gys, _ = _checked(n_layers, batches, 1, True)

    def f(*a):
        numpy.random.seed(5)
        hx, cx, ws, bs, xs = _unflat(a, n_layers, len(batches))
        hy, cy, ys = n_step_lstm(n_layers, 0.5, hx, cx, ws, bs, xs)
        return (hy, cy) + ys

    gradient_check.check_backward(f, tuple(args), tuple(gys))


def test_variables_and_arrays_accepted():
    hx, cx, ws, bs, xs = _inputs(1, (2, 1), 1)
    expected = n_step_lstm(1, 0.0, hx, cx, ws, bs, xs)
    got = n_step_lstm(1, 0.0, chainlite.Variable(hx), cx,
                      [[chainlite.Variable(a) for a in ws[0]]], bs,
                      tuple(chainlite.Variable(x) for x in xs))
    numpy.testing.assert_allclose(got[0].array, expected[0].array, rtol=1e-14)
    numpy.testing.assert_allclose(got[2][1].array, expected[2][1].array, rtol=1e-14)


def _invalid(func, *args, match=''):
    msg = re.escape('Invalid operation is performed in: %s (Forward)' % func.__name__)
    with pytest.raises(type_check.InvalidType, match='(?s)' + msg + '.*' + re.escape(match)):
        func(*args)


@pytest.mark.parametrize('directions', [1, 2])
def test_invalid_inputs(directions):
    func = FUNCS[directions]
    hx, cx, ws, bs, xs = _inputs(2, (3, 2), directions)
    _invalid(func, 2, 0.0, hx, cx, ws, bs, [xs[1], xs[0]], match='xs[0].shape[0] >= xs[1]')
    _invalid(func, 2, 0.0, hx, cx, ws, bs, [x[:, :2] for x in xs], match='ws[0][0].shape')
    _invalid(func, 2, 0.0, hx, cx, ws[:-1], bs, xs, match='len(ws)')
    _invalid(func, 2, 0.0, hx, cx, ws, [b[:7] for b in bs], xs, match='len(bs[0]) == 8')
    _invalid(func, 2, 0.0, hx[:, :2], cx, ws, bs, xs, match='hx.shape')
    _invalid(func, 2, 0.0, hx, cx[:1], ws, bs, xs, match='cx.shape')
    _invalid(func, 2, 0.0, hx, cx, ws, bs, [x.astype(numpy.float32) for x in xs],
             match='dtype')
    _invalid(func, 2, 0.0, hx, cx, ws, bs, [x.astype(numpy.int32) for x in xs],
             match='xs[0].dtype.kind == f')
    _invalid(func, 2, 0.0, hx, cx, ws, bs, [], match='len(xs) > 0')
    _invalid(func, 2, 0.0, hx, cx, ws, bs, [x[:, None] for x in xs], match='xs[0].ndim')
    with pytest.raises(ValueError, match='dropout_ratio'):
        func(2, 1.0, hx, cx, ws, bs, xs)
