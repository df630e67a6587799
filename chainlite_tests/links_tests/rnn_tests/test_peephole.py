"""StatefulPeepholeLSTM: Chainer's parameters and the peephole LSTM equations."""
import numpy

import chainlite.links as L

# namedparams() of chainer.links.StatefulPeepholeLSTM(3, 2) in Chainer 7.8.1.
CHAINER_PARAMS = [('/lateral/W', (8, 2)), ('/peep_f/W', (2, 2)), ('/peep_i/W', (2, 2)),
                  ('/peep_o/W', (2, 2)), ('/upward/W', (8, 3)), ('/upward/b', (8,))]


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _reference(link, c, h, x):
    z = x @ link.upward.W.array.T + link.upward.b.array
    if h is not None:
        z = z + h @ link.lateral.W.array.T
    a, i, f, o = (z.reshape(len(x), -1, 4)[:, :, k] for k in range(4))
    i = _sigmoid(i + c @ link.peep_i.W.array.T)
    f = _sigmoid(f + c @ link.peep_f.W.array.T)
    c = numpy.tanh(a) * i + f * c
    o = _sigmoid(o + c @ link.peep_o.W.array.T)
    return c, o * numpy.tanh(c)


def test_parameters():
    assert sorted((n, p.shape) for n, p in L.StatefulPeepholeLSTM(3, 2).namedparams()) == (
        CHAINER_PARAMS)


def test_two_steps():
    link = L.StatefulPeepholeLSTM(3, 2)
    rs = numpy.random.RandomState(0)
    for p in link.params():
        p.array[...] = rs.uniform(-1, 1, p.shape)
    x1, x2 = (rs.uniform(-1, 1, (4, 3)).astype(numpy.float32) for _ in range(2))
    c, h = _reference(link, numpy.zeros((4, 2)), None, x1)
    y = link(x1)
    numpy.testing.assert_allclose(y.array, h, rtol=1e-5, atol=1e-6)
    c, h = _reference(link, c, h, x2)
    y = link(x2)
    numpy.testing.assert_allclose(y.array, h, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(link.c.array, c, rtol=1e-5, atol=1e-6)
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert all(p.grad is not None for p in link.params())
    link.reset_state()
    assert link.c is None and link.h is None
