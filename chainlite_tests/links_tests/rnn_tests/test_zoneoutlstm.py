"""StatefulZoneoutLSTM: Chainer's parameters; zoneout of the state in training only."""
import numpy
import pytest

import chainlite
import chainlite.links as L

CHAINER_PARAMS = [('/lateral/W', (8, 2)), ('/upward/W', (8, 3)), ('/upward/b', (8,))]


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _lstm(link, c, h, x):
    z = x @ link.upward.W.array.T + link.upward.b.array + h @ link.lateral.W.array.T
    a, i, f, o = (z.reshape(len(x), -1, 4)[:, :, k] for k in range(4))
    c = numpy.tanh(a) * _sigmoid(i) + _sigmoid(f) * c
    return c, _sigmoid(o) * numpy.tanh(c)


def _data():
    rs = numpy.random.RandomState(0)
    return [rs.uniform(-1, 1, (4, 3)).astype(numpy.float32) for _ in range(2)]


def test_parameters():
    link = L.StatefulZoneoutLSTM(3, 2)
    assert sorted((n, p.shape) for n, p in link.namedparams()) == CHAINER_PARAMS
    assert (link.c_ratio, link.h_ratio) == (0.5, 0.5)


def test_test_mode_is_a_plain_lstm():
    link = L.StatefulZoneoutLSTM(3, 2)
    c = h = numpy.zeros((4, 2))
    with chainlite.using_config('train', False):
        for x in _data():
            c, h = _lstm(link, c, h, x)
            y = link(x)
            numpy.testing.assert_allclose(y.array, h, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(link.c.array, c, rtol=1e-5, atol=1e-6)


def test_ratios_zero_and_one():
    x1, x2 = _data()
    keep = L.StatefulZoneoutLSTM(3, 2, c_ratio=1.0, h_ratio=1.0)
    keep(x1)
    assert (keep.h.array == 0).all() and (keep.c.array == 0).all()
    new = L.StatefulZoneoutLSTM(3, 2, c_ratio=0.0, h_ratio=0.0)
    c, h = _lstm(new, numpy.zeros((4, 2)), numpy.zeros((4, 2)), x1)
    numpy.testing.assert_allclose(new(x1).array, h, rtol=1e-5, atol=1e-6)
    y = new(x2)
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert new.upward.W.grad is not None


def test_state_and_errors():
    link = L.StatefulZoneoutLSTM(3, 2)
    z = chainlite.Variable(numpy.zeros((4, 2), numpy.float32))
    link.set_state(z, z)
    assert link.c is z and link.h is z
    link.reset_state()
    assert link.c is None and link.h is None
    with pytest.raises(TypeError, match='must be a Variable'):
        link.set_state(numpy.zeros((4, 2)), z)
    with pytest.raises(ValueError, match='train argument is not supported'):
        L.StatefulZoneoutLSTM(3, 2, train=True)
