"""StatelessMGU and StatefulMGU: Chainer's parameters, the MGU equations, the state."""
import numpy
import pytest

import chainlite
import chainlite.links as L

# namedparams() of chainer.links.StatefulMGU(3, 2) in Chainer 7.8.1.
CHAINER_PARAMS = [('/W_f/W', (2, 5)), ('/W_f/b', (2,)), ('/W_h/W', (2, 5)), ('/W_h/b', (2,))]


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _reference(link, h, x):
    W_f, b_f = link.W_f.W.array.astype(numpy.float64), link.W_f.b.array
    W_h, b_h = link.W_h.W.array.astype(numpy.float64), link.W_h.b.array
    f = _sigmoid(numpy.concatenate([h, x], 1) @ W_f.T + b_f)
    h_bar = numpy.tanh(numpy.concatenate([f * h, x], 1) @ W_h.T + b_h)
    return f * h_bar + (1 - f) * h


@pytest.mark.parametrize('cls', [L.StatelessMGU, L.StatefulMGU])
def test_parameters(cls):
    link = cls(3, 2)
    assert sorted((n, p.shape) for n, p in link.namedparams()) == CHAINER_PARAMS


def test_stateless():
    link = L.StatelessMGU(3, 2)
    rs = numpy.random.RandomState(0)
    h = rs.uniform(-1, 1, (4, 2)).astype(numpy.float32)
    x = rs.uniform(-1, 1, (4, 3)).astype(numpy.float32)
    y = link(h, x)
    numpy.testing.assert_allclose(y.array, _reference(link, h, x), rtol=1e-5, atol=1e-6)


def test_stateful_keeps_state():
    link = L.StatefulMGU(3, 2)
    rs = numpy.random.RandomState(1)
    x1, x2 = (rs.uniform(-1, 1, (4, 3)).astype(numpy.float32) for _ in range(2))
    y1 = link(x1)
    assert y1.dtype == numpy.float32
    h1 = _reference(link, numpy.zeros((4, 2)), x1)
    numpy.testing.assert_allclose(y1.array, h1, rtol=1e-5, atol=1e-6)
    y2 = link(x2)
    numpy.testing.assert_allclose(y2.array, _reference(link, h1, x2), rtol=1e-5, atol=1e-6)
    y2.grad = numpy.ones_like(y2.array)
    y2.backward()
    assert link.W_f.W.grad is not None
    link.reset_state()
    assert link.h is None
    link.set_state(chainlite.Variable(numpy.zeros((4, 2), numpy.float32)))
    numpy.testing.assert_allclose(link(x1).array, y1.array)
    with pytest.raises(TypeError, match='must be a Variable'):
        link.set_state(numpy.zeros((4, 2)))
