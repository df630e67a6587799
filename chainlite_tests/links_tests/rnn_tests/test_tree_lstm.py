"""ChildSumTreeLSTM and NaryTreeLSTM: Chainer's parameters, the equations, None children."""
import numpy
import pytest

import chainlite.links as L


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _lin(link, x):
    y = x @ link.W.array.T
    return y if link.b is None else y + link.b.array


def _randomize(link, seed=0):
    rs = numpy.random.RandomState(seed)
    for p in link.params():
        p.array[...] = rs.uniform(-1, 1, p.shape)
    return rs


def _child_sum_ref(link, cs, hs, x):
    n = link.state_size
    wx = _lin(link.W_x, x)
    aio = _lin(link.W_h_aio, sum(hs)) + wx[:, :3 * n]
    a, i, o = numpy.split(aio, 3, axis=1)
    fs = [_sigmoid(_lin(link.W_h_f, h) + wx[:, 3 * n:]) for h in hs]
    c = numpy.tanh(a) * _sigmoid(i) + sum(f * c for f, c in zip(fs, cs))
    return c, _sigmoid(o) * numpy.tanh(c)


def test_child_sum_parameters():
    link = L.ChildSumTreeLSTM(3, 2)
    assert sorted((n, p.shape) for n, p in link.namedparams()) == [
        ('/W_h_aio/W', (6, 2)), ('/W_h_f/W', (2, 2)), ('/W_x/W', (8, 3)), ('/W_x/b', (8,))]


@pytest.mark.parametrize('n_children', [1, 2, 3])
def test_child_sum(n_children):
    link = L.ChildSumTreeLSTM(3, 2)
    rs = _randomize(link)
    cs = [rs.uniform(-1, 1, (4, 2)).astype(numpy.float32) for _ in range(n_children)]
    hs = [rs.uniform(-1, 1, (4, 2)).astype(numpy.float32) for _ in range(n_children)]
    x = rs.uniform(-1, 1, (4, 3)).astype(numpy.float32)
    c, h = link(*cs, *hs, x)
    ce, he = _child_sum_ref(link, cs, hs, x)
    numpy.testing.assert_allclose(c.array, ce, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(h.array, he, rtol=1e-5, atol=1e-6)
    # The order of the children does not matter.
    c2, h2 = link(*cs[::-1], *hs[::-1], x)
    numpy.testing.assert_allclose(c2.array, ce, rtol=1e-5, atol=1e-6)


def test_child_sum_leaf_and_none():
    link = L.ChildSumTreeLSTM(3, 2)
    rs = _randomize(link)
    x = rs.uniform(-1, 1, (4, 3)).astype(numpy.float32)
    c, h = link(x)
    a, i, o = numpy.split(_lin(link.W_x, x)[:, :6], 3, axis=1)
    numpy.testing.assert_allclose(c.array, _sigmoid(i) * numpy.tanh(a), rtol=1e-5, atol=1e-6)
    c1, h1 = link(c, None, h, None, x)
    ce, he = _child_sum_ref(link, [c.array, numpy.zeros((4, 2))],
                            [h.array, numpy.zeros((4, 2))], x)
    numpy.testing.assert_allclose(h1.array, he, rtol=1e-5, atol=1e-6)
    c0, _ = link(c, h, None)  # no input: zeros of the children's batch and dtype
    assert c0.shape == (4, 2) and c0.dtype == numpy.float32
    with pytest.raises(ValueError, match='all inputs'):
        link(None, None, None)
    with pytest.raises(TypeError, match='odd number'):
        link(c, h)


def test_nary():
    link = L.NaryTreeLSTM(3, 2, n_ary=2)
    assert sorted((n, p.shape) for n, p in link.namedparams()) == [
        ('/W_h1/W', (10, 2)), ('/W_h2/W', (10, 2)), ('/W_x/W', (10, 3)), ('/W_x/b', (10,))]
    rs = _randomize(link)
    c1, c2, h1, h2 = (rs.uniform(-1, 1, (4, 2)).astype(numpy.float32) for _ in range(4))
    x = rs.uniform(-1, 1, (4, 3)).astype(numpy.float32)
    c, h = link(c1, c2, h1, h2, x)
    z = _lin(link.W_x, x) + _lin(link.W_h1, h1) + _lin(link.W_h2, h2)
    a, i, o, f1, f2 = numpy.split(z, 5, axis=1)
    ce = numpy.tanh(a) * _sigmoid(i) + _sigmoid(f1) * c1 + _sigmoid(f2) * c2
    numpy.testing.assert_allclose(c.array, ce, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(h.array, _sigmoid(o) * numpy.tanh(ce), rtol=1e-5, atol=1e-6)
    h.grad = numpy.ones_like(h.array)
    h.backward()
    assert link.W_h2.W.grad is not None
    c0, _ = link(None, None, None, None, x)
    assert c0.shape == (4, 2)
    with pytest.raises(TypeError, match='expected 5 arguments'):
        link(c1, h1, x)
    with pytest.raises(ValueError, match='n_ary must be at least 1'):
        L.NaryTreeLSTM(3, 2, n_ary=0)
