"""NStepLSTM and NStepBiLSTM: Chainer's parameter names, the cell state, Chainer's numbers.

The behaviour shared by all NStep* links is tested in test_n_step_rnn.py.
"""
import numpy
import pytest

from chainlite import testing
from chainlite.links.rnn.n_step_lstm import NStepBiLSTM
from chainlite.links.rnn.n_step_lstm import NStepLSTM

# namedparams() in Chainer 7.8.1 (sorted) of NStepLSTM(2, 3, 2, 0.0) and
# NStepBiLSTM(2, 3, 2, 0.0).
CHAINER_LSTM = [
    ('/0/b0', (2,)), ('/0/b1', (2,)), ('/0/b2', (2,)), ('/0/b3', (2,)), ('/0/b4', (2,)),
    ('/0/b5', (2,)), ('/0/b6', (2,)), ('/0/b7', (2,)), ('/0/w0', (2, 3)), ('/0/w1', (2, 3)),
    ('/0/w2', (2, 3)), ('/0/w3', (2, 3)), ('/0/w4', (2, 2)), ('/0/w5', (2, 2)), ('/0/w6', (2, 2)),
    ('/0/w7', (2, 2)), ('/1/b0', (2,)), ('/1/b1', (2,)), ('/1/b2', (2,)), ('/1/b3', (2,)),
    ('/1/b4', (2,)), ('/1/b5', (2,)), ('/1/b6', (2,)), ('/1/b7', (2,)), ('/1/w0', (2, 2)),
    ('/1/w1', (2, 2)), ('/1/w2', (2, 2)), ('/1/w3', (2, 2)), ('/1/w4', (2, 2)), ('/1/w5', (2, 2)),
    ('/1/w6', (2, 2)), ('/1/w7', (2, 2))]
CHAINER_BILSTM = [
    ('/0/b0', (2,)), ('/0/b1', (2,)), ('/0/b2', (2,)), ('/0/b3', (2,)), ('/0/b4', (2,)),
    ('/0/b5', (2,)), ('/0/b6', (2,)), ('/0/b7', (2,)), ('/0/w0', (2, 3)), ('/0/w1', (2, 3)),
    ('/0/w2', (2, 3)), ('/0/w3', (2, 3)), ('/0/w4', (2, 2)), ('/0/w5', (2, 2)), ('/0/w6', (2, 2)),
    ('/0/w7', (2, 2)), ('/1/b0', (2,)), ('/1/b1', (2,)), ('/1/b2', (2,)), ('/1/b3', (2,)),
    ('/1/b4', (2,)), ('/1/b5', (2,)), ('/1/b6', (2,)), ('/1/b7', (2,)), ('/1/w0', (2, 3)),
    ('/1/w1', (2, 3)), ('/1/w2', (2, 3)), ('/1/w3', (2, 3)), ('/1/w4', (2, 2)), ('/1/w5', (2, 2)),
    ('/1/w6', (2, 2)), ('/1/w7', (2, 2)), ('/2/b0', (2,)), ('/2/b1', (2,)), ('/2/b2', (2,)),
    ('/2/b3', (2,)), ('/2/b4', (2,)), ('/2/b5', (2,)), ('/2/b6', (2,)), ('/2/b7', (2,)),
    ('/2/w0', (2, 4)), ('/2/w1', (2, 4)), ('/2/w2', (2, 4)), ('/2/w3', (2, 4)), ('/2/w4', (2, 2)),
    ('/2/w5', (2, 2)), ('/2/w6', (2, 2)), ('/2/w7', (2, 2)), ('/3/b0', (2,)), ('/3/b1', (2,)),
    ('/3/b2', (2,)), ('/3/b3', (2,)), ('/3/b4', (2,)), ('/3/b5', (2,)), ('/3/b6', (2,)),
    ('/3/b7', (2,)), ('/3/w0', (2, 4)), ('/3/w1', (2, 4)), ('/3/w2', (2, 4)), ('/3/w3', (2, 4)),
    ('/3/w4', (2, 2)), ('/3/w5', (2, 2)), ('/3/w6', (2, 2)), ('/3/w7', (2, 2))]


def _arr(shape, phase, scale):
    # The fixed values the Chainer reference below was computed with.
    n = int(numpy.prod(shape))
    return (scale * numpy.sin(numpy.arange(n) * 0.7 + phase)).reshape(shape).astype(
        numpy.float32)


@pytest.mark.parametrize('cls, expected', [(NStepLSTM, CHAINER_LSTM),
                                           (NStepBiLSTM, CHAINER_BILSTM)])
def test_namedparams_match_chainer(cls, expected):
    link = cls(2, 3, 2, 0.0)
    assert sorted((path, p.shape) for path, p in link.namedparams()) == expected


@pytest.mark.parametrize('cls', [NStepLSTM, NStepBiLSTM])
def test_state_shapes(cls):
    link = cls(2, 3, 4, 0.0)
    xs = [numpy.ones((n, 3), numpy.float32) for n in (1, 3)]
    hy, cy, ys = link(None, None, xs)
    n = 2 * link.direction
    assert hy.shape == cy.shape == (n, 2, 4)
    assert [y.shape for y in ys] == [(1, 4 * link.direction), (3, 4 * link.direction)]


def test_cell_state_is_used():
    link = NStepLSTM(1, 3, 2, 0.0, initial_bias=0.1)
    xs = [numpy.ones((2, 3), numpy.float32)]
    cx = numpy.full((1, 1, 2), 3.0, numpy.float32)
    _, cy0, _ = link(None, None, xs)
    _, cy, _ = link(None, cx, xs)
    assert not numpy.allclose(cy.array, cy0.array)


def test_matches_chainer_numerically():
    # chainer.links.NStepLSTM(2, 3, 2, 0.0) in Chainer 7.8.1 with these weights, an initial
    # hidden state, no initial cell state, and sequences of lengths 2, 3, 1 (unsorted).
    link = NStepLSTM(2, 3, 2, 0.0)
    for k, cell in enumerate(link):
        for j in range(8):
            w, b = getattr(cell, 'w%d' % j), getattr(cell, 'b%d' % j)
            w.array[...] = _arr(w.shape, j + 3 * k, 0.5)
            b.array[...] = _arr(b.shape, 0.5 * j + k, 0.1)
    xs = [_arr((2, 3), 0.1, 0.8), _arr((3, 3), 0.2, 0.8), _arr((1, 3), 0.3, 0.8)]
    hx = _arr((2, 3, 2), 0.4, 0.3)
    hy, cy, ys = link(hx, None, xs)
    testing.assert_allclose(hy.array, [
        [[0.151243, -0.090016], [-0.042423, 0.114953], [0.050719, -0.152382]],
        [[-0.011216, -0.006549], [-0.003786, -0.014277], [0.012402, -0.08131]]], atol=2e-6)
    testing.assert_allclose(cy.array, [
        [[0.282275, -0.225519], [-0.071139, 0.184839], [0.142454, -0.358206]],
        [[-0.023556, -0.013625], [-0.007544, -0.029241], [0.028958, -0.197463]]], atol=2e-6)
    testing.assert_allclose(ys[0].array, [[-0.003009, 0.039174], [-0.011216, -0.006549]],
                            atol=2e-6)
    testing.assert_allclose(ys[1].array, [[-0.004465, -0.027551], [-0.010121, -0.028512],
                                          [-0.003786, -0.014277]], atol=2e-6)
    testing.assert_allclose(ys[2].array, [[0.012402, -0.08131]], atol=2e-6)
