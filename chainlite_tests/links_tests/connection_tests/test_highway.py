"""L.Highway: two Linear children, the gated forward, initializers, nobias."""
import numpy as np

import chainlite.functions as F
import chainlite.links as L


def _uniform(*shape, seed=0):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)


def test_children_and_defaults():
    layer = L.Highway(3)
    assert [n for n, _ in layer.namedparams()] == ['/plain/W', '/plain/b', '/transform/W',
                                                   '/transform/b']
    assert layer.plain.W.shape == (3, 3) and layer.transform.W.shape == (3, 3)
    np.testing.assert_array_equal(layer.plain.b.array, 0)
    np.testing.assert_array_equal(layer.transform.b.array, -1)
    assert layer.activate is F.relu
    assert str(layer) == ('Highway(\n'
                          '  (plain): Linear(in_size=3, out_size=3, nobias=False),\n'
                          '  (transform): Linear(in_size=3, out_size=3, nobias=False),\n'
                          ')')


def test_forward_formula():
    Wh, Wt, bh = _uniform(3, 3, seed=1), _uniform(3, 3, seed=2), _uniform(3, seed=3)
    layer = L.Highway(3, activate=F.tanh, init_Wh=Wh, init_Wt=Wt, init_bh=bh, init_bt=0.5)
    x = _uniform(4, 3)
    t = 1 / (1 + np.exp(-(x @ Wt.T + 0.5)))
    expected = np.tanh(x @ Wh.T + bh) * t + x * (1 - t)
    np.testing.assert_allclose(layer(x).array, expected, rtol=1e-5, atol=1e-6)


def test_backward_reaches_both_children():
    layer = L.Highway(2)
    layer.cleargrads()
    F.sum(layer(_uniform(3, 2))).backward()
    assert all(p.grad is not None and p.grad.shape == p.shape for p in layer.params())


def test_nobias():
    layer = L.Highway(2, nobias=True)
    assert [n for n, _ in layer.namedparams()] == ['/plain/W', '/transform/W']
    assert layer(np.zeros((1, 2), np.float32)).shape == (1, 2)
