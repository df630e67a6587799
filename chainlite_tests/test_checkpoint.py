import tracemalloc

import numpy as np
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite.utils.checkpoint import checkpoint


def _mlp(depth, units, seed=0):
    rng = np.random.default_rng(seed)
    # He-scaled weights keep the activations of a deep ReLU net from vanishing.
    return [L.Linear(units, units, initialW=(rng.standard_normal((units, units)) *
                                             np.sqrt(2.0 / units)).astype(np.float32))
            for _ in range(depth)]


def _segment(layers):
    def run(z):
        for layer in layers:
            z = F.relu(layer(z))
        return z
    return run


def _step(layers, x, every):
    """A training step's forward and backward; ``every`` layers per checkpoint (0: none)."""
    for layer in layers:
        layer.cleargrads()
    h = chainlite.Variable(x)
    if every:
        for i in range(0, len(layers), every):
            h = checkpoint(_segment(layers[i:i + every]), h)
    else:
        h = _segment(layers)(h)
    F.sum(h * h).backward()
    return h


def test_gradients_equal_the_plain_computation():
    layers = _mlp(6, 8)
    x = np.random.default_rng(1).standard_normal((5, 8)).astype(np.float32)
    plain = _step(layers, x, 0)
    expected = [(lay.W.grad.copy(), lay.b.grad.copy()) for lay in layers]
    v = chainlite.Variable(x)
    for layer in layers:
        layer.cleargrads()
    h = v
    for i in range(0, 6, 2):
        h = checkpoint(_segment(layers[i:i + 2]), h)
    np.testing.assert_allclose(h.array, plain.array, rtol=1e-6)
    F.sum(h * h).backward()
    for layer, (gw, gb) in zip(layers, expected):
        np.testing.assert_allclose(layer.W.grad, gw, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(layer.b.grad, gb, rtol=1e-5, atol=1e-6)
    v2 = chainlite.Variable(x)
    F.sum(_segment(layers)(v2) ** 2).backward()
    np.testing.assert_allclose(v.grad, v2.grad, rtol=1e-5, atol=1e-6)


def test_a_chain_with_constant_and_keyword_arguments():
    class Net(chainlite.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(3, 4)
                self.l2 = L.Linear(4, 2)

        def forward(self, x, scale, activation=F.tanh):
            return self.l2(activation(self.l1(x))) * scale

    net = Net()
    x = np.random.default_rng(2).standard_normal((2, 3)).astype(np.float32)
    net.cleargrads()
    F.sum(net(x, 2.0, activation=F.sigmoid)).backward()
    expected = net.l1.W.grad.copy()
    net.cleargrads()
    y = checkpoint(net, x, 2.0, activation=F.sigmoid)
    F.sum(y).backward()
    np.testing.assert_allclose(net.l1.W.grad, expected, rtol=1e-5)


def test_needs_an_array_argument():
    with pytest.raises(TypeError, match='at least one Variable or array'):
        checkpoint(lambda s: s, 3.0)


def test_batch_normalization_updates_its_statistics_once():
    bn = L.BatchNormalization(3)
    x = np.random.default_rng(3).standard_normal((8, 3)).astype(np.float32)
    F.sum(checkpoint(bn, x)).backward()
    once = bn.avg_mean.copy()
    bn2 = L.BatchNormalization(3)
    bn2(x)
    np.testing.assert_allclose(once, bn2.avg_mean)


def _peak(layers, x, every):
    tracemalloc.start()
    try:
        _step(layers, x, every)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_checkpointing_lowers_the_peak_memory_of_a_training_step():
    # 32 ReLU layers, 32 units, batch 1024, float32: each activation is 128 KiB and the
    # parameter gradients only 132 KiB in all, so the activations dominate. (With 512 units
    # and batch 256 the 20 MiB of weight gradients would hide the effect.) NumPy reports its
    # allocations to tracemalloc. Checkpointing every 4 layers keeps 8 boundaries plus one
    # recomputed segment instead of all 32 activations.
    layers = _mlp(32, 32)
    x = np.random.default_rng(4).standard_normal((1024, 32)).astype(np.float32)
    plain = _peak(layers, x, 0)
    grads = [lay.W.grad.copy() for lay in layers]
    checkpointed = _peak(layers, x, 4)
    for lay, g in zip(layers, grads):
        np.testing.assert_allclose(lay.W.grad, g, rtol=1e-4, atol=1e-5)
    assert checkpointed < 0.6 * plain, (checkpointed, plain)
