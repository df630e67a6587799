"""CRF1d link: the cost parameter, the loss and decoding, with and without transpose."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L


def _batch_major(seed=0):
    rs = numpy.random.RandomState(seed)
    lengths = [2, 4, 3]  # not sorted: transpose=True sorts them
    xs = [rs.uniform(-1, 1, (n, 3)).astype(numpy.float32) for n in lengths]
    ys = [rs.randint(0, 3, n).astype(numpy.int32) for n in lengths]
    return xs, ys


def test_parameter():
    crf = L.CRF1d(3)
    assert [(n, p.shape) for n, p in crf.namedparams()] == [('/cost', (3, 3))]
    assert (crf.cost.array == 0).all()
    crf2 = L.CRF1d(2, initial_cost=numpy.ones((2, 2)))
    assert (crf2.cost.array == 1).all()


def test_forward_time_major_matches_function():
    crf = L.CRF1d(3, initial_cost=chainlite.initializers.Uniform(1))
    xs, ys = _batch_major()
    order = [1, 2, 0]
    txs = F.transpose_sequence([xs[i] for i in order])
    tys = [y.array for y in F.transpose_sequence([ys[i] for i in order])]
    loss = crf(txs, tys)
    numpy.testing.assert_allclose(loss.array, F.crf1d(crf.cost, txs, tys).array)


@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_transpose_sorts_and_transposes(reduce):
    crf = L.CRF1d(3, initial_cost=chainlite.initializers.Uniform(1))
    xs, ys = _batch_major()
    loss = crf(xs, ys, reduce=reduce, transpose=True)
    each = [float(F.crf1d(crf.cost, [x[i:i + 1] for i in range(len(x))],
                          [y[i:i + 1] for i in range(len(y))]).array) for x, y in zip(xs, ys)]
    if reduce == 'mean':
        numpy.testing.assert_allclose(loss.array, numpy.mean(each), rtol=1e-5)
    else:  # in the sorted order (longest first), as in Chainer
        numpy.testing.assert_allclose(loss.array, [each[1], each[2], each[0]], rtol=1e-5)
    loss = crf(xs, ys, transpose=True)
    crf.cleargrads()
    loss.backward()
    assert crf.cost.grad.shape == (3, 3)


def test_argmax_transpose_restores_order():
    crf = L.CRF1d(3, initial_cost=chainlite.initializers.Uniform(1))
    xs, _ = _batch_major(1)
    score, path = crf.argmax(xs, transpose=True)
    assert [p.shape for p in path] == [(2,), (4,), (3,)]
    for x, p in zip(xs, path):
        s, q = crf.argmax([x[i:i + 1] for i in range(len(x))])
        assert [int(v[0]) for v in q] == p.tolist()
