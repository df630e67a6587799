"""n_step_rnn and n_step_birnn (tanh and relu) against a loop-by-loop NumPy RNN."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.rnn.n_step_rnn import n_step_birnn
from chainlite.functions.rnn.n_step_rnn import n_step_rnn
from chainlite.utils import type_check

IN, UNITS = 3, 2
# (n_layers, batch sizes per time step)
CASES = [(1, (3,)), (1, (3, 3)), (2, (3, 2, 1)), (2, (2, 2, 1))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}
FUNCS = {1: n_step_rnn, 2: n_step_birnn}
ACTIVATIONS = ['tanh', 'relu']


def _uniform(shape, dtype, rs):
    return rs.uniform(-1, 1, shape).astype(dtype)


def _inputs(n_layers, batches, directions, dtype=numpy.float64, seed=0):
    rs = numpy.random.RandomState(seed)
    n = n_layers * directions
    hx = _uniform((n, batches[0], UNITS), dtype, rs)
    xs = [_uniform((b, IN), dtype, rs) for b in batches]
    ws, bs = [], []
    for k in range(n):
        layer_in = IN if k < directions else UNITS * directions
        ws.append([_uniform((UNITS, layer_in), dtype, rs), _uniform((UNITS, UNITS), dtype, rs)])
        bs.append([_uniform((UNITS,), dtype, rs) for _ in range(2)])
    return hx, ws, bs, xs


def _reference(n_layers, hx, ws, bs, xs, directions, activation, masks=None):
    # Straight loops in float64; masks[(layer, d)] multiplies that layer's stacked inputs.
    # Also returns the smallest |pre-activation| seen, to keep ReLU tests off its kink.
    f64 = numpy.float64
    hy = hx.astype(f64)
    inputs = [x.astype(f64) for x in xs]
    steps = len(xs)
    closest = numpy.inf
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
            h = hy[k]
            ys = [None] * steps
            for t in (range(steps) if d == 0 else reversed(range(steps))):
                x = layer_in[t]
                n = len(x)
                pre = x @ w[0].T + h[:n] @ w[1].T + b[0] + b[1]
                closest = min(closest, numpy.abs(pre).min())
                h[:n] = numpy.tanh(pre) if activation == 'tanh' else numpy.maximum(pre, 0)
                ys[t] = h[:n].copy()
            outs.append(ys)
        inputs = [numpy.concatenate(step, axis=1) for step in zip(*outs)]
    return hy, inputs, closest


def _flat(hx, ws, bs, xs):
    return [hx] + list(xs) + [a for w in ws for a in w] + [a for b in bs for a in b]


def _unflat(args, n_cells, steps):
    hx = args[0]
    xs = list(args[1:1 + steps])
    rest = args[1 + steps:]
    ws = [list(rest[2 * k:2 * k + 2]) for k in range(n_cells)]
    rest = rest[2 * n_cells:]
    bs = [list(rest[2 * k:2 * k + 2]) for k in range(n_cells)]
    return hx, ws, bs, xs


@pytest.mark.parametrize('activation', ACTIVATIONS)
@pytest.mark.parametrize('directions', [1, 2])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('n_layers, batches', CASES)
def test_forward(n_layers, batches, dtype, directions, activation):
    hx, ws, bs, xs = _inputs(n_layers, batches, directions, dtype)
    hy, ys = FUNCS[directions](n_layers, 0.0, hx, ws, bs, xs, activation=activation)
    hy_ref, ys_ref, _ = _reference(n_layers, hx, ws, bs, xs, directions, activation)
    assert isinstance(ys, tuple) and len(ys) == len(xs)
    assert hy.dtype == dtype and all(y.dtype == dtype for y in ys)
    assert hy.shape == hx.shape
    numpy.testing.assert_allclose(hy.array, hy_ref, **TOL[dtype])
    for y, y_ref, b in zip(ys, ys_ref, batches):
        assert y.shape == (b, UNITS * directions)
        numpy.testing.assert_allclose(y.array, y_ref, **TOL[dtype])


def test_default_activation_is_tanh():
    hx, ws, bs, xs = _inputs(1, (2, 1), 1)
    hy, _ = n_step_rnn(1, 0.0, hx, ws, bs, xs)
    numpy.testing.assert_allclose(hy.array, _reference(1, hx, ws, bs, xs, 1, 'tanh')[0],
                                  rtol=1e-12)


@pytest.mark.parametrize('directions', [1, 2])
def test_none_state_is_zeros(directions):
    hx, ws, bs, xs = _inputs(2, (3, 2, 1), directions)
    func = FUNCS[directions]
    expected = func(2, 0.0, numpy.zeros_like(hx), ws, bs, xs)
    got = func(2, 0.0, None, ws, bs, xs)
    numpy.testing.assert_allclose(got[0].array, expected[0].array, rtol=1e-14)
    for y, y_ref in zip(got[1], expected[1]):
        numpy.testing.assert_allclose(y.array, y_ref.array, rtol=1e-14)


def _checked(n_layers, batches, directions, activation, with_state, ratio=0.0):
    n_cells, steps = n_layers * directions, len(batches)
    func = FUNCS[directions]

    def f(*args):
        numpy.random.seed(5)  # the same dropout masks at every evaluation
        hx, ws, bs, xs = _unflat(args, n_cells, steps)
        hy, ys = func(n_layers, ratio, hx if with_state else None, ws, bs, xs, activation)
        return (hy,) + ys

    # Finite differences step by 1e-3: the first seed whose ReLU pre-activations all stay
    # clear of the kink at 0 (any seed for tanh, which is smooth).
    for seed in range(100):
        inputs = _inputs(n_layers, batches, directions, seed=seed)
        hx = inputs[0] if with_state else numpy.zeros_like(inputs[0])
        hy_ref, ys_ref, closest = _reference(n_layers, hx, *inputs[1:], directions,
                                             activation)
        if activation == 'tanh' or closest > 0.02:
            break
    args = _flat(*inputs)
    if not with_state:
        args[0] = args[0][:, :, :0].copy()  # an unused placeholder: not differentiated
    rs = numpy.random.RandomState(7)
    gys = [rs.uniform(-1, 1, hy_ref.shape)] + [rs.uniform(-1, 1, y.shape) for y in ys_ref]
    return f, args, gys, rs


@pytest.mark.parametrize('activation', ACTIVATIONS)
@pytest.mark.parametrize('with_state', [True, False])
@pytest.mark.parametrize('directions', [1, 2])
@pytest.mark.parametrize('n_layers, batches', [(1, (2, 2)), (2, (3, 2, 1))])
def test_backward(n_layers, batches, directions, with_state, activation):
    f, args, gys, _ = _checked(n_layers, batches, directions, activation, with_state)
    gradient_check.check_backward(f, tuple(args), tuple(gys))


@pytest.mark.parametrize('activation', ACTIVATIONS)
@pytest.mark.parametrize('directions', [1, 2])
@pytest.mark.parametrize('n_layers, batches', [(1, (2, 2)), (2, (3, 2, 1))])
def test_double_backward(n_layers, batches, directions, activation):
    f, args, gys, rs = _checked(n_layers, batches, directions, activation, True)
    ggs = tuple(rs.uniform(-1, 1, a.shape) for a in args)
    gradient_check.check_double_backward(f, tuple(args), tuple(gys), ggs)


@pytest.mark.parametrize('activation', ACTIVATIONS)
@pytest.mark.parametrize('directions', [1, 2])
def test_float32_grads(directions, activation):
    hx, ws, bs, xs = _inputs(2, (3, 2), directions, numpy.float32)
    hx = chainlite.Variable(hx)
    ws = [[chainlite.Variable(a) for a in w] for w in ws]
    bs = [[chainlite.Variable(a) for a in b] for b in bs]
    xs = [chainlite.Variable(x) for x in xs]
    hy, ys = FUNCS[directions](2, 0.0, hx, ws, bs, xs, activation=activation)
    loss = chainlite.functions.sum(hy * hy)
    for y in ys:
        loss = loss + chainlite.functions.sum(y)
    loss.backward()
    for v in [hx] + xs + [a for w in ws for a in w] + [a for b in bs for a in b]:
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
    hx, ws, bs, xs = _inputs(3, batches, directions)
    masks = _dropout_masks(3, batches, directions, ratio, seed=3)
    numpy.random.seed(3)
    hy, ys = FUNCS[directions](3, ratio, hx, ws, bs, xs)
    hy_ref, ys_ref, _ = _reference(3, hx, ws, bs, xs, directions, 'tanh', masks)
    numpy.testing.assert_allclose(hy.array, hy_ref, rtol=1e-12, atol=1e-12)
    for y, y_ref in zip(ys, ys_ref):
        numpy.testing.assert_allclose(y.array, y_ref, rtol=1e-12, atol=1e-12)
    assert not numpy.allclose(hy.array, _reference(3, hx, ws, bs, xs, directions, 'tanh')[0])


@pytest.mark.parametrize('directions', [1, 2])
def test_no_dropout_at_test_time(directions):
    hx, ws, bs, xs = _inputs(2, (3, 2), directions)
    with chainlite.using_config('train', False):
        hy = FUNCS[directions](2, 0.5, hx, ws, bs, xs)[0]
    numpy.testing.assert_allclose(
        hy.array, _reference(2, hx, ws, bs, xs, directions, 'tanh')[0], rtol=1e-12)


def test_dropout_backward():
    f, args, gys, _ = _checked(2, (2, 1), 2, 'tanh', True, ratio=0.5)
    gradient_check.check_backward(f, tuple(args), tuple(gys))


def test_variables_and_arrays_accepted():
    hx, ws, bs, xs = _inputs(1, (2, 1), 1)
    expected = n_step_rnn(1, 0.0, hx, ws, bs, xs)
    got = n_step_rnn(1, 0.0, chainlite.Variable(hx), [[chainlite.Variable(a) for a in ws[0]]],
                     bs, tuple(chainlite.Variable(x) for x in xs))
    numpy.testing.assert_allclose(got[0].array, expected[0].array, rtol=1e-14)
    numpy.testing.assert_allclose(got[1][1].array, expected[1][1].array, rtol=1e-14)


def _invalid(func, *args, match=''):
    msg = re.escape('Invalid operation is performed in: %s (Forward)' % func.__name__)
    with pytest.raises(type_check.InvalidType, match='(?s)' + msg + '.*' + re.escape(match)):
        func(*args)


@pytest.mark.parametrize('directions', [1, 2])
def test_invalid_inputs(directions):
    func = FUNCS[directions]
    hx, ws, bs, xs = _inputs(2, (3, 2), directions)
    _invalid(func, 2, 0.0, hx, ws, bs, [xs[1], xs[0]], match='xs[0].shape[0] >= xs[1]')
    _invalid(func, 2, 0.0, hx, ws, bs, [x[:, :2] for x in xs], match='ws[0][0].shape')
    _invalid(func, 2, 0.0, hx, ws[:-1], bs, xs, match='len(ws)')
    _invalid(func, 2, 0.0, hx, ws, [b[:1] for b in bs], xs, match='len(bs[0]) == 2')
    _invalid(func, 2, 0.0, hx[:, :2], ws, bs, xs, match='hx.shape')
    _invalid(func, 2, 0.0, hx, ws, bs, [x.astype(numpy.float32) for x in xs], match='dtype')
    _invalid(func, 2, 0.0, hx, ws, bs, [], match='len(xs) > 0')
    with pytest.raises(ValueError, match='activation'):
        func(2, 0.0, hx, ws, bs, xs, activation='sigmoid')
    with pytest.raises(ValueError, match='dropout_ratio'):
        func(2, 1.5, hx, ws, bs, xs)
