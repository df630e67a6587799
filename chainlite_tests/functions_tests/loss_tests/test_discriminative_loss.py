"""discriminative_margin_based_clustering_loss against a per-cluster NumPy loop."""
import numpy
import pytest

import chainlite.functions as F
from chainlite.testing import gradients


def _reference(emb, labels, dv, dd, k, norm, alpha, beta, gamma):
    def nrm(v, axis):
        return numpy.abs(v).sum(axis) if norm == 1 else numpy.sqrt((v ** 2).sum(axis))
    b = emb.shape[0]
    means = numpy.zeros((k, b, emb.shape[1]))
    var = 0.0
    for c in range(k):
        mask = labels == c + 1  # (B, H, W)
        for i in range(b):
            if mask[i].any():
                means[c, i] = emb[i][:, mask[i]].mean(axis=1)
        term = 0.0
        for i in range(b):
            d = nrm(emb[i][:, mask[i]] - means[c, i][:, None], 0)
            term += (numpy.maximum(d - dv, 0) ** 2).sum()
        var += term / max(mask.sum(), 1)
    var /= k
    dist, pairs = 0.0, 0
    for a in range(k):
        for c in range(a + 1, k):
            dist += (numpy.maximum(2 * dd - nrm(means[a] - means[c], 1), 0) ** 2).sum()
            pairs += 1
    dist /= max(pairs * b, 1)
    reg = sum(nrm(means[c], (0, 1)) for c in range(k)) / (k * b)
    return alpha * var, beta * dist, gamma * reg


def _data(seed=0, b=2, k=3):
    rs = numpy.random.RandomState(seed)
    emb = rs.uniform(-1, 1, (b, k, 4, 5))
    labels = rs.randint(0, k + 1, (b, 4, 5)).astype(numpy.int32)
    return emb, labels


@pytest.mark.parametrize('norm', [1, 2])
def test_forward(norm):
    emb, labels = _data()
    out = F.discriminative_margin_based_clustering_loss(emb, labels, 0.2, 0.6, 3, norm,
                                                        1.0, 0.5, 0.01)
    expect = _reference(emb, labels, 0.2, 0.6, 3, norm, 1.0, 0.5, 0.01)
    for got, want in zip(out, expect):
        numpy.testing.assert_allclose(got.array, want, rtol=1e-10)


def test_chainer_figures():
    # Chainer 7.8.1's own example: 5 samples, 5 clusters, linspace inputs.
    emb = numpy.linspace(0, 100, 5 * 5 * 10 * 10).reshape(5, 5, 10, 10)
    labels = numpy.linspace(0, 10, 500).astype(numpy.int32).reshape(5, 10, 10)
    out = F.discriminative_margin_based_clustering_loss(emb, labels, 0.5, 5, 5, 1, 1, 1, 0.001)
    numpy.testing.assert_allclose([float(v.array) for v in out],
                                  [6.0776708, 64.0, 0.03419368], rtol=1e-6)


@pytest.mark.parametrize('norm', [1, 2])
def test_backward_and_double_backward(norm):
    emb, labels = _data(1, b=1, k=2)

    def f(e):
        return F.discriminative_margin_based_clustering_loss(e, labels, 0.1, 1.0, 2, norm)
    gradients.check_grads(f, emb, order=2)


def test_errors():
    emb, labels = _data()
    loss = F.discriminative_margin_based_clustering_loss
    with pytest.raises(ValueError, match='norm must be 1 or 2'):
        loss(emb, labels, 0.5, 1.5, 3, norm=3)
    with pytest.raises(ValueError, match='max_embedding_dim must be positive'):
        loss(emb, labels, 0.5, 1.5, 0)
    with pytest.raises(ValueError, match='embeddings must be'):
        loss(emb, labels, 0.5, 1.5, 4)
    with pytest.raises(ValueError, match='labels must be'):
        loss(emb, labels[:, :2], 0.5, 1.5, 3)
