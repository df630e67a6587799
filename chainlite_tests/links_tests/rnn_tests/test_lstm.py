"""LSTM and StatelessLSTM: Chainer's parameter layout, lazy init, state handling, F.lstm."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import testing
from chainlite.links.connection.linear import Linear
from chainlite.links.rnn.lstm import LSTM
from chainlite.links.rnn.lstm import StatelessLSTM

# namedparams() of chainer.links.LSTM(3, 2) and StatelessLSTM(3, 2) in Chainer 7.8.1 (sorted).
CHAINER_PARAMS = [('/lateral/W', (8, 2)), ('/upward/W', (8, 3)), ('/upward/b', (8,))]


def _arr(shape, phase, scale):
    # The fixed values the Chainer reference below was computed with.
    n = int(numpy.prod(shape))
    return (scale * numpy.sin(numpy.arange(n) * 0.7 + phase)).reshape(shape).astype(
        numpy.float32)


def _fixed_lstm(cls=LSTM):
    link = cls(3, 2)
    link.upward.W.array[...] = _arr((8, 3), 0.0, 0.5)
    link.upward.b.array[...] = _arr((8,), 1.0, 0.2)
    link.lateral.W.array[...] = _arr((8, 2), 2.0, 0.5)
    return link


def _step(link, c, h, x):
    # One step by hand from the link's parameters.
    a = F.linear(x, link.upward.W, link.upward.b)
    if h is not None:
        a = a + F.linear(h, link.lateral.W)
    return F.lstm(c, a)


@pytest.mark.parametrize('cls', [LSTM, StatelessLSTM])
def test_namedparams_match_chainer(cls):
    link = cls(3, 2)
    got = sorted((path, p.shape) for path, p in link.namedparams())
    assert got == CHAINER_PARAMS
    assert isinstance(link.upward, Linear) and isinstance(link.lateral, Linear)
    assert link.lateral.b is None


def test_default_initialization():
    link = LSTM(3, 2)
    # Forget-gate biases (gate 2 of each unit, interleaved) start at 1, the others at 0.
    numpy.testing.assert_array_equal(link.upward.b.array, [0, 0, 1, 0, 0, 0, 1, 0])
    assert link.upward.W.array.std() > 0 and link.lateral.W.array.std() > 0
    assert link.state_size == 2


def test_initializers_apply_per_gate_block():
    shapes = []

    def record(array):
        shapes.append(array.shape)
        array[...] = len(shapes)

    link = LSTM(3, 2, lateral_init=record, upward_init=record, bias_init=-2,
                forget_bias_init=5)
    # Chainer's order: lateral then upward, one block of out_size rows per gate.
    assert shapes == [(2, 2), (2, 3)] * 4
    numpy.testing.assert_array_equal(link.lateral.W.array[:, 0], [1, 1, 3, 3, 5, 5, 7, 7])
    numpy.testing.assert_array_equal(link.upward.W.array[:, 0], [2, 2, 4, 4, 6, 6, 8, 8])
    numpy.testing.assert_array_equal(link.upward.b.array, [-2, -2, 5, -2] * 2)


def test_seeded_initialization_matches_chainer():
    # chainer.links.LSTM(2, 1) after numpy.random.seed(3): the draws go lateral, upward per
    # gate block, so the same seed gives the same weights.
    numpy.random.seed(3)
    link = LSTM(2, 1)
    numpy.testing.assert_allclose(
        link.lateral.W.array[:, 0], [1.788628, -1.863493, -0.082741, -0.477218], rtol=1e-5)
    numpy.testing.assert_allclose(
        link.upward.W.array[:2], [[0.308659, 0.068234], [-0.196143, -0.250852]], rtol=1e-5)


@pytest.mark.parametrize('args', [(4,), (None, 4)])
def test_lazy_in_size(args):
    link = LSTM(*args)
    assert link.upward.W.array is None
    assert link.lateral.W.shape == (16, 4)
    y = link(numpy.ones((3, 5, 1), numpy.float32))  # trailing axes are flattened
    assert y.shape == (3, 4)
    assert link.upward.W.shape == (16, 5)
    numpy.testing.assert_array_equal(link.upward.b.array.reshape(4, 4)[:, 2], 1)


def test_out_size_required():
    with pytest.raises(TypeError, match='LSTM'):
        LSTM(None)


def test_forward_equals_lstm_function():
    link = _fixed_lstm()
    x1, x2 = _arr((2, 3), 3.0, 1.0), _arr((2, 3), 4.0, 1.0)
    y1 = link(x1)
    y2 = link(x2)
    c, h = _step(link, numpy.zeros((2, 2), numpy.float32), None, x1)
    testing.assert_allclose(y1.array, h.array)
    c, h = _step(link, c, h, x2)
    testing.assert_allclose(y2.array, h.array)
    testing.assert_allclose(link.c.array, c.array)
    testing.assert_allclose(link.h.array, h.array)
    assert y2.dtype == numpy.float32


def test_smaller_batch_updates_first_rows_only():
    link = _fixed_lstm()
    link(_arr((3, 3), 3.0, 1.0))
    c0, h0 = link.c.array.copy(), link.h.array.copy()
    x = _arr((2, 3), 5.0, 1.0)
    y = link(x)
    c, h = _step(link, c0[:2], h0[:2], x)
    testing.assert_allclose(y.array, h.array)
    testing.assert_allclose(link.h.array[:2], h.array)
    testing.assert_allclose(link.c.array[:2], c.array)
    numpy.testing.assert_array_equal(link.h.array[2:], h0[2:])
    numpy.testing.assert_array_equal(link.c.array[2:], c0[2:])
    # An empty batch changes nothing.
    y = link(numpy.zeros((0, 3), numpy.float32))
    assert y.shape == (0, 2) and link.h.shape == (3, 2)


def test_larger_batch_than_state_raises():
    link = LSTM(3, 2)
    link(numpy.ones((1, 3), numpy.float32))
    with pytest.raises(TypeError, match='LSTM: the batch size of x'):
        link(numpy.ones((2, 3), numpy.float32))


def test_reset_and_set_state():
    link = _fixed_lstm()
    assert link.c is None and link.h is None
    x = _arr((2, 3), 3.0, 1.0)
    y_first = link(x).array
    link(x)
    link.reset_state()
    assert link.c is None and link.h is None
    testing.assert_allclose(link(x).array, y_first)

    c = chainlite.Variable(_arr((2, 2), 1.0, 0.5))
    h = chainlite.Variable(_arr((2, 2), 2.0, 0.5))
    link.set_state(c, h)
    assert link.c is c and link.h is h
    y = link(x)
    testing.assert_allclose(y.array, _step(link, c, h, x)[1].array)
    with pytest.raises(TypeError, match='LSTM.set_state: h must be a Variable'):
        link.set_state(c, h.array)


def test_gradients_reach_all_params():
    link = _fixed_lstm()
    link.cleargrads()
    link(_arr((2, 3), 3.0, 1.0))
    y = link(_arr((2, 3), 4.0, 1.0))
    F.sum(y * y).backward()
    for path, p in link.namedparams():
        assert p.grad is not None and numpy.abs(p.grad).sum() > 0, path


def test_matches_chainer_numerically():
    # chainer.links.LSTM(3, 2) in Chainer 7.8.1 with the weights of _fixed_lstm, called on x
    # and then on its first row doubled (a smaller batch).
    link = _fixed_lstm()
    x = _arr((2, 3), 3.0, 1.0)
    y1 = link(x)
    y2 = link(x[:1] * 2)
    testing.assert_allclose(y1.array, [[-0.0869, 0.008302], [0.025508, -0.114827]], atol=2e-6)
    testing.assert_allclose(y2.array, [[-0.132532, 0.055465]], atol=2e-6)
    testing.assert_allclose(link.h.array, [[-0.132532, 0.055465], [0.025508, -0.114827]],
                            atol=2e-6)
    testing.assert_allclose(link.c.array, [[-0.701437, 0.097804], [0.052258, -0.331045]],
                            atol=2e-6)


def test_stateless_lstm_step():
    link = _fixed_lstm(StatelessLSTM)
    x = _arr((2, 3), 3.0, 1.0)
    c, h = link(None, None, x)
    c_ref, h_ref = _step(link, numpy.zeros((2, 2), numpy.float32), None, x)
    testing.assert_allclose(c.array, c_ref.array)
    testing.assert_allclose(h.array, h_ref.array)
    c2, h2 = link(c, h, x)
    c_ref, h_ref = _step(link, c, h, x)
    testing.assert_allclose(c2.array, c_ref.array)
    testing.assert_allclose(h2.array, h_ref.array)
    # The same numbers as the stateful link's first step.
    testing.assert_allclose(h.array, [[-0.0869, 0.008302], [0.025508, -0.114827]], atol=2e-6)


def test_stateless_lstm_lazy_and_gradients():
    link = StatelessLSTM(None, 2)
    link.cleargrads()
    c, h = link(None, None, numpy.ones((2, 4), numpy.float32))
    c, h = link(c, h, numpy.ones((2, 4), numpy.float32))
    assert link.upward.W.shape == (8, 4)
    F.sum(h * h + c).backward()
    for path, p in link.namedparams():
        assert p.grad is not None and numpy.abs(p.grad).sum() > 0, path


@pytest.mark.parametrize('argname', ['lateral_init', 'upward_init', 'bias_init',
                                     'forget_bias_init'])
def test_bad_initializer_is_named(argname):
    # Checked at construction, even when the weights are created lazily.
    with pytest.raises(TypeError, match='LSTM: invalid %s' % argname):
        LSTM(2, **{argname: 'zeros'})


def test_fused_gate_inputs_give_the_child_links_results():
    # After the first step L.LSTM computes upward(x) + lateral(h) in one node
    # (lstm.gate_inputs); with a link hook active it calls the two links. Same outputs and
    # gradients either way, over three steps.
    from chainlite import link_hooks

    def run(hooked):
        link = _fixed_lstm()
        link.cleargrads()
        xs = [_arr((2, 3), 3.0 + k, 1.0) for k in range(3)]
        if hooked:
            with link_hooks.TimerHook():
                ys = [link(x) for x in xs]
        else:
            ys = [link(x) for x in xs]
        F.sum(ys[-1] * ys[-1] + ys[0]).backward()
        return [y.array for y in ys] + [p.grad for _, p in sorted(link.namedparams())]

    fused, plain = run(False), run(True)
    for a, b in zip(fused, plain):
        testing.assert_allclose(a, b, atol=1e-6, rtol=1e-5)
