"""crf1d and argmax_crf1d against brute-force enumeration of every label sequence."""
import itertools

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite.testing import gradients
from chainlite.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 2e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}
K = 3
LENGTHS = [4, 3, 3, 1]  # sorted by decreasing length, as crf1d requires


def _data(dtype=numpy.float64, seed=0):
    rs = numpy.random.RandomState(seed)
    cost = rs.uniform(-1, 1, (K, K)).astype(dtype)
    seqs = [rs.uniform(-1, 1, (n, K)).astype(dtype) for n in LENGTHS]
    labels = [rs.randint(0, K, n).astype(numpy.int32) for n in LENGTHS]
    xs = [numpy.stack([s[i] for s in seqs if len(s) > i]) for i in range(LENGTHS[0])]
    ys = [numpy.array([y[i] for y in labels if len(y) > i], numpy.int32)
          for i in range(LENGTHS[0])]
    return cost, seqs, labels, xs, ys


def _score(cost, seq, y):
    return sum(seq[i, y[i]] for i in range(len(y))) + sum(
        cost[y[i], y[i + 1]] for i in range(len(y) - 1))


def _brute_force(cost, seqs, labels):
    cost = cost.astype(numpy.float64)
    losses, best = [], []
    for seq, y in zip(seqs, labels):
        seq = seq.astype(numpy.float64)
        scores = {p: _score(cost, seq, p) for p in itertools.product(range(K), repeat=len(y))}
        logz = numpy.log(numpy.sum(numpy.exp(list(scores.values()))))
        losses.append(logz - _score(cost, seq, y))
        best.append(max(scores, key=scores.get))
    return numpy.array(losses), best


@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('dtype', DTYPES)
def test_forward(dtype, reduce):
    cost, seqs, labels, xs, ys = _data(dtype)
    loss = F.crf1d(chainlite.Variable(cost), [chainlite.Variable(x) for x in xs], ys,
                   reduce=reduce)
    assert loss.dtype == dtype
    expect, _ = _brute_force(cost, seqs, labels)
    if reduce == 'mean':
        expect = expect.mean()
    numpy.testing.assert_allclose(loss.array, expect, **TOL[dtype])


@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_backward_and_double_backward(reduce):
    cost, _, _, xs, ys = _data()

    def f(cost, *xs):
        return F.crf1d(cost, list(xs), ys, reduce=reduce)
    gradients.check_grads(f, (cost,) + tuple(xs), order=2)


def test_argmax_matches_brute_force():
    cost, seqs, labels, xs, _ = _data(seed=4)
    score, path = F.argmax_crf1d(cost, xs)
    _, best = _brute_force(cost, seqs, labels)
    assert [p.shape for p in path] == [x.shape[:1] for x in xs]
    assert all(p.dtype == numpy.int32 for p in path)
    for b, seq in enumerate(seqs):
        got = tuple(int(path[i][b]) for i in range(len(seq)))
        assert got == best[b]
        numpy.testing.assert_allclose(score.array[b], _score(cost, seq, best[b]), rtol=1e-12)


def test_argmax_score_is_differentiable():
    cost, _, _, xs, _ = _data(seed=4)
    gradients.check_grads(lambda c, *xs: F.argmax_crf1d(c, list(xs))[0],
                          (cost,) + tuple(xs), order=2)


def test_equal_lengths_and_single_step():
    cost, _, _, xs, ys = _data()
    full = [x[:3] for x in xs[:3]]
    loss = F.crf1d(cost, full, [y[:3] for y in ys[:3]], reduce='no')
    assert loss.shape == (3,)
    one = F.crf1d(cost, xs[:1], ys[:1], reduce='no')
    x0 = xs[0]
    expect = numpy.log(numpy.exp(x0).sum(1)) - x0[numpy.arange(4), ys[0]]
    numpy.testing.assert_allclose(one.array, expect, rtol=1e-12)


def test_errors():
    cost, _, _, xs, ys = _data()
    with pytest.raises(ValueError, match="crf1d: reduce must be 'mean' or 'no'"):
        F.crf1d(cost, xs, ys, reduce='sum')
    with pytest.raises(TypeError, match='xs must be a non-empty list'):
        F.crf1d(cost, [], [])
    with pytest.raises(TypeError, match='ys must be a list as long as xs'):
        F.crf1d(cost, xs, ys[:2])
    with pytest.raises(type_check.InvalidType, match='crf1d'):
        F.crf1d(cost[:2], xs, ys)
    with pytest.raises(type_check.InvalidType, match=r'xs\[1\]'):
        F.crf1d(cost, [xs[0], xs[1].astype(numpy.float32)] + xs[2:], ys)
    with pytest.raises(type_check.InvalidType, match='shape'):
        F.crf1d(cost, xs[::-1], ys[::-1])  # lengths must not grow
