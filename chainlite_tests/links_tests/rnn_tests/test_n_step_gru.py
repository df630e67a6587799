"""NStepGRU and NStepBiGRU: Chainer's parameter names and Chainer's numbers.

The behaviour shared by all NStep* links is tested in test_n_step_rnn.py.
"""
import numpy
import pytest

from chainlite import testing
from chainlite.links.rnn.n_step_gru import NStepBiGRU
from chainlite.links.rnn.n_step_gru import NStepGRU

# namedparams() in Chainer 7.8.1 (sorted) of NStepGRU(2, 3, 2, 0.0) and
# NStepBiGRU(1, 3, 2, 0.0).
CHAINER_GRU = [
    ('/0/b0', (2,)), ('/0/b1', (2,)), ('/0/b2', (2,)), ('/0/b3', (2,)), ('/0/b4', (2,)),
    ('/0/b5', (2,)), ('/0/w0', (2, 3)), ('/0/w1', (2, 3)), ('/0/w2', (2, 3)), ('/0/w3', (2, 2)),
    ('/0/w4', (2, 2)), ('/0/w5', (2, 2)), ('/1/b0', (2,)), ('/1/b1', (2,)), ('/1/b2', (2,)),
    ('/1/b3', (2,)), ('/1/b4', (2,)), ('/1/b5', (2,)), ('/1/w0', (2, 2)), ('/1/w1', (2, 2)),
    ('/1/w2', (2, 2)), ('/1/w3', (2, 2)), ('/1/w4', (2, 2)), ('/1/w5', (2, 2))]
CHAINER_BIGRU = [
    ('/0/b0', (2,)), ('/0/b1', (2,)), ('/0/b2', (2,)), ('/0/b3', (2,)), ('/0/b4', (2,)),
    ('/0/b5', (2,)), ('/0/w0', (2, 3)), ('/0/w1', (2, 3)), ('/0/w2', (2, 3)), ('/0/w3', (2, 2)),
    ('/0/w4', (2, 2)), ('/0/w5', (2, 2)), ('/1/b0', (2,)), ('/1/b1', (2,)), ('/1/b2', (2,)),
    ('/1/b3', (2,)), ('/1/b4', (2,)), ('/1/b5', (2,)), ('/1/w0', (2, 3)), ('/1/w1', (2, 3)),
    ('/1/w2', (2, 3)), ('/1/w3', (2, 2)), ('/1/w4', (2, 2)), ('/1/w5', (2, 2))]


def _arr(shape, phase, scale):
    # The fixed values the Chainer reference below was computed with.
    n = int(numpy.prod(shape))
    return (scale * numpy.sin(numpy.arange(n) * 0.7 + phase)).reshape(shape).astype(
        numpy.float32)


@pytest.mark.parametrize('cls, n_layers, expected', [(NStepGRU, 2, CHAINER_GRU),
                                                     (NStepBiGRU, 1, CHAINER_BIGRU)])
def test_namedparams_match_chainer(cls, n_layers, expected):
    link = cls(n_layers, 3, 2, 0.0)
    assert sorted((path, p.shape) for path, p in link.namedparams()) == expected


def test_matches_chainer_numerically():
    # chainer.links.NStepBiGRU(1, 3, 2, 0.0) in Chainer 7.8.1 with these weights, an initial
    # state and sequences of lengths 2, 3, 1 (unsorted).
    link = NStepBiGRU(1, 3, 2, 0.0)
    for k, cell in enumerate(link):
        for j in range(6):
            w, b = getattr(cell, 'w%d' % j), getattr(cell, 'b%d' % j)
            w.array[...] = _arr(w.shape, j + 3 * k, 0.5)
            b.array[...] = _arr(b.shape, 0.5 * j + k, 0.1)
    xs = [_arr((2, 3), 0.1, 0.8), _arr((3, 3), 0.2, 0.8), _arr((1, 3), 0.3, 0.8)]
    hy, ys = link(_arr((2, 3, 2), 0.4, 0.3), xs)
    testing.assert_allclose(hy.array, [
        [[0.245693, -0.166496], [-0.146241, 0.170988], [0.073535, -0.431637]],
        [[-0.22286, 0.240937], [-0.142562, 0.190429], [0.06027, 0.391711]]], atol=2e-6)
    testing.assert_allclose(ys[0].array, [[0.109032, -0.162657, -0.22286, 0.240937],
                                          [0.245693, -0.166496, -0.367092, 0.024463]],
                            atol=2e-6)
    testing.assert_allclose(ys[1].array, [[0.224193, -0.24195, -0.142562, 0.190429],
                                          [0.304117, -0.180758, -0.116736, -0.06527],
                                          [-0.146241, 0.170988, 0.092617, -0.335922]],
                            atol=2e-6)
    testing.assert_allclose(ys[2].array, [[0.073535, -0.431637, 0.06027, 0.391711]],
                            atol=2e-6)
