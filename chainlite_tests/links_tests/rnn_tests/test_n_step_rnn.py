"""The NStep* links (through their base, NStepRNNBase): parameter layout, sorting of the
sequences, equality with the n_step functions, gradients, errors; and the Elman RNN links."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import testing
from chainlite.links.rnn.n_step_gru import NStepBiGRU
from chainlite.links.rnn.n_step_gru import NStepGRU
from chainlite.links.rnn.n_step_lstm import NStepBiLSTM
from chainlite.links.rnn.n_step_lstm import NStepLSTM
from chainlite.links.rnn.n_step_rnn import NStepBiRNNReLU
from chainlite.links.rnn.n_step_rnn import NStepBiRNNTanh
from chainlite.links.rnn.n_step_rnn import NStepRNNReLU
from chainlite.links.rnn.n_step_rnn import NStepRNNTanh

IN, OUT = 3, 2
# class -> (function, weights per layer, directions)
LINKS = {
    NStepRNNTanh: (lambda *a: F.n_step_rnn(*a, activation='tanh'), 2, 1),
    NStepRNNReLU: (lambda *a: F.n_step_rnn(*a, activation='relu'), 2, 1),
    NStepBiRNNTanh: (lambda *a: F.n_step_birnn(*a, activation='tanh'), 2, 2),
    NStepBiRNNReLU: (lambda *a: F.n_step_birnn(*a, activation='relu'), 2, 2),
    NStepLSTM: (F.n_step_lstm, 8, 1),
    NStepBiLSTM: (F.n_step_bilstm, 8, 2),
    NStepGRU: (F.n_step_gru, 6, 1),
    NStepBiGRU: (F.n_step_bigru, 6, 2),
}
ALL = list(LINKS)
LSTMS = (NStepLSTM, NStepBiLSTM)

# namedparams() in Chainer 7.8.1 (sorted) of NStepRNNTanh(2, 3, 2, 0.0) and
# NStepBiRNNReLU(2, 3, 2, 0.0).
CHAINER_RNN_TANH = [
    ('/0/b0', (2,)), ('/0/b1', (2,)), ('/0/w0', (2, 3)), ('/0/w1', (2, 2)),
    ('/1/b0', (2,)), ('/1/b1', (2,)), ('/1/w0', (2, 2)), ('/1/w1', (2, 2))]
CHAINER_BIRNN_RELU = [
    ('/0/b0', (2,)), ('/0/b1', (2,)), ('/0/w0', (2, 3)), ('/0/w1', (2, 2)),
    ('/1/b0', (2,)), ('/1/b1', (2,)), ('/1/w0', (2, 3)), ('/1/w1', (2, 2)),
    ('/2/b0', (2,)), ('/2/b1', (2,)), ('/2/w0', (2, 4)), ('/2/w1', (2, 2)),
    ('/3/b0', (2,)), ('/3/b1', (2,)), ('/3/w0', (2, 4)), ('/3/w1', (2, 2))]


def _make(cls, n_layers=2, dropout=0.0):
    link = cls(n_layers, IN, OUT, dropout)
    rs = numpy.random.RandomState(1)
    for p in link.params():
        # Nonzero biases, so that every parameter matters; positive ones keep ReLU units
        # active, away from the kink at 0.
        low = 0.1 if p.ndim == 1 else -0.8
        p.array[...] = rs.uniform(low, 0.8, p.shape)
    return link


def _run(link, hx, xs, cx=None):
    # (states, ys) whatever the link's kind.
    if isinstance(link, LSTMS):
        hy, cy, ys = link(hx, cx, xs)
        return [hy, cy], ys
    hy, ys = link(hx, xs)
    return [hy], ys


def _seqs(lengths, seed=0):
    rs = numpy.random.RandomState(seed)
    return [rs.uniform(-1, 1, (n, IN)).astype(numpy.float32) for n in lengths]


def _hx(link, batch, seed=2):
    rs = numpy.random.RandomState(seed)
    return rs.uniform(-1, 1, (link.n_layers * link.direction, batch, OUT)).astype(
        numpy.float32)


@pytest.mark.parametrize('cls, expected', [(NStepRNNTanh, CHAINER_RNN_TANH),
                                           (NStepBiRNNReLU, CHAINER_BIRNN_RELU)])
def test_namedparams_match_chainer(cls, expected):
    link = cls(2, 3, 2, 0.0)
    assert sorted((path, p.shape) for path, p in link.namedparams()) == expected


@pytest.mark.parametrize('cls', ALL)
def test_layout_and_attributes(cls):
    _, n_weights, direction = LINKS[cls]
    link = cls(2, IN, OUT, 0.25)
    assert len(link) == 2 * direction
    assert (link.n_layers, link.dropout, link.out_size, link.direction) == (2, 0.25, OUT,
                                                                           direction)
    assert link.n_weights == n_weights and link.use_bi_direction == (direction == 2)
    assert link.n_cells == (2 if cls in LSTMS else 1)
    assert [len(w) for w in link.ws] == [n_weights] * (2 * direction)
    assert link.ws[-1][0] is link[len(link) - 1].w0
    assert link.bs[0][n_weights - 1] is getattr(link[0], 'b%d' % (n_weights - 1))
    # Default initialization: LeCunNormal weights, zero biases.
    assert all(not b.array.any() for bs in link.bs for b in bs)
    assert all(w.array.std() > 0 for ws in link.ws for w in ws)


@pytest.mark.parametrize('cls', ALL)
def test_forward_equals_function_on_sorted_sequences(cls):
    fn, _, _ = LINKS[cls]
    link = _make(cls)
    xs = _seqs([4, 3, 3, 1])
    hx = _hx(link, 4)
    states, ys = _run(link, hx, xs, cx=hx * 0.5 if cls in LSTMS else None)
    args = (hx, hx * 0.5) if cls in LSTMS else (hx,)
    ref = fn(2, 0.0, *args, link.ws, link.bs, F.transpose_sequence(xs))
    for got, want in zip(states, ref[:-1]):
        testing.assert_allclose(got.array, want.array)
        assert got.dtype == numpy.float32
    ref_ys = F.transpose_sequence(ref[-1])
    assert len(ys) == len(xs)
    for got, want in zip(ys, ref_ys):
        testing.assert_allclose(got.array, want.array)


@pytest.mark.parametrize('cls', ALL)
def test_unsorted_sequences_are_restored(cls):
    link = _make(cls)
    xs = _seqs([2, 5, 1, 3])
    hx = _hx(link, 4)
    states, ys = _run(link, hx, xs, cx=hx if cls in LSTMS else None)
    out_size = OUT * link.direction
    assert [y.shape for y in ys] == [(n, out_size) for n in (2, 5, 1, 3)]
    # Each sequence alone (with its own initial state) gives the same outputs and states.
    for i, x in enumerate(xs):
        h_i = hx[:, i:i + 1]
        states_i, (y_i,) = _run(link, h_i, [x], cx=h_i if cls in LSTMS else None)
        testing.assert_allclose(ys[i].array, y_i.array)
        for s, s_i in zip(states, states_i):
            testing.assert_allclose(s.array[:, i:i + 1], s_i.array)


@pytest.mark.parametrize('cls', ALL)
def test_none_states_are_zeros(cls):
    link = _make(cls)
    xs = _seqs([3, 1, 2])
    zeros = numpy.zeros((link.n_layers * link.direction, 3, OUT), numpy.float32)
    states, ys = _run(link, None, xs)
    states0, ys0 = _run(link, zeros, xs, cx=zeros)
    for a, b in zip(states + ys, states0 + ys0):
        testing.assert_allclose(a.array, b.array)


@pytest.mark.parametrize('cls', ALL)
def test_gradients_reach_all_params(cls):
    link = _make(cls)
    link.cleargrads()
    xs = [chainlite.Variable(x) for x in _seqs([3, 1, 2])]
    hx = chainlite.Variable(_hx(link, 3))
    cx = chainlite.Variable(_hx(link, 3, seed=3)) if cls in LSTMS else None
    states, ys = _run(link, hx, xs, cx=cx)
    loss = sum(F.sum(y * y) for y in ys) + sum(F.sum(s * s) for s in states)
    loss.backward()
    for path, p in link.namedparams():
        assert p.grad is not None and numpy.abs(p.grad).sum() > 0, path
    # The initial states are permuted into sorted order and back: every row gets a gradient.
    for v in xs + [hx] + ([cx] if cx is not None else []):
        assert v.grad is not None and v.grad.shape == v.shape
        assert (numpy.abs(v.grad).sum(axis=-1) > 0).all()


def test_initializers():
    link = NStepLSTM(1, IN, OUT, 0.0, initialW=0.5, initial_bias=-1)
    assert all((w.array == 0.5).all() for w in link.ws[0])
    assert all((b.array == -1).all() for b in link.bs[0])
    link = NStepGRU(1, IN, OUT, 0.0, initialW=chainlite.initializers.Constant(2.0))
    assert (link[0].w5.array == 2).all()


def test_dropout_only_in_training():
    link = _make(NStepRNNTanh, dropout=0.5)
    plain = _make(NStepRNNTanh, dropout=0.0)
    xs = _seqs([3, 2])
    with chainlite.using_config('train', False):
        hy, _ = link(None, xs)
    hy0, _ = plain(None, xs)
    testing.assert_allclose(hy.array, hy0.array)
    numpy.random.seed(0)
    hy_train, _ = link(None, xs)
    assert not numpy.allclose(hy_train.array[1], hy0.array[1])


def test_copy_keeps_ws_on_the_copy():
    link = _make(NStepBiGRU)
    for mode in ('share', 'copy'):
        other = link.copy(mode)
        assert other.ws[1][2] is other[1].w2 and other.ws[1][2] is not link.ws[1][2]
        hy, _ = link(None, _seqs([2]))
        hy2, _ = other(None, _seqs([2]))
        testing.assert_allclose(hy.array, hy2.array)


@pytest.mark.parametrize('kwargs, match', [
    ({'n_layers': 0}, 'NStepRNNTanh: n_layers must be a positive int'),
    ({'in_size': None}, 'NStepRNNTanh: in_size must be a positive int'),
    ({'dropout': 1.0}, r'NStepRNNTanh: dropout must be in \[0, 1\)'),
])
def test_bad_arguments(kwargs, match):
    args = dict(n_layers=1, in_size=IN, out_size=OUT, dropout=0.0)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        NStepRNNTanh(**args)


@pytest.mark.parametrize('argname', ['initialW', 'initial_bias'])
def test_bad_initializer_is_named(argname):
    with pytest.raises(TypeError, match='NStepGRU: invalid %s' % argname):
        NStepGRU(1, IN, OUT, 0.0, **{argname: 'zeros'})


def test_xs_must_be_a_list():
    link = NStepRNNTanh(1, IN, OUT, 0.0)
    with pytest.raises(TypeError, match='NStepRNNTanh: xs must be a list or tuple'):
        link(None, numpy.zeros((2, 3, IN), numpy.float32))


def test_relu_and_tanh_differ():
    tanh_link = _make(NStepRNNTanh, n_layers=1)
    relu_link = _make(NStepRNNReLU, n_layers=1)
    xs = _seqs([2])
    _, (y_tanh,) = tanh_link(None, xs)
    _, (y_relu,) = relu_link(None, xs)
    x = xs[0]
    w0, w1 = (p.array for p in tanh_link.ws[0])
    b = sum(p.array for p in tanh_link.bs[0])
    h = numpy.tanh(x[0] @ w0.T + b)
    testing.assert_allclose(y_tanh.array[0], h)
    testing.assert_allclose(y_tanh.array[1], numpy.tanh(x[1] @ w0.T + h @ w1.T + b))
    testing.assert_allclose(y_relu.array[0], numpy.maximum(x[0] @ w0.T + b, 0))
