"""connectionist_temporal_classification against a brute-force sum over every alignment."""
import itertools
import re

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite.testing import gradients
from chainlite.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-10, 'rtol': 1e-10}}


def _collapse(seq, blank):
    out = []
    prev = None
    for s in seq:
        if s != prev and s != blank:
            out.append(s)
        prev = s
    return out


def _brute_force(x, t, blank, input_length, label_length):
    # Sum the probability of every length-T path that collapses to the label sequence.
    x = x.astype(numpy.float64)
    n_time, n_batch, n_vocab = x.shape
    p = numpy.exp(x - x.max(2, keepdims=True))
    p /= p.sum(2, keepdims=True)
    loss = numpy.empty(n_batch)
    for b in range(n_batch):
        T, L = input_length[b], label_length[b]
        target = list(t[b, :L])
        total = 0.0
        for path in itertools.product(range(n_vocab), repeat=int(T)):
            if _collapse(path, blank) == target:
                total += numpy.prod([p[i, b, s] for i, s in enumerate(path)])
        loss[b] = -numpy.log(total)
    return loss


def _data(n_time=4, n_batch=3, n_vocab=3, dtype=numpy.float64, seed=0):
    rs = numpy.random.RandomState(seed)
    x = rs.uniform(-1, 1, (n_time, n_batch, n_vocab)).astype(dtype)
    t = numpy.array([[0, 1], [1, 1], [0, 0]], numpy.int32)[:n_batch]
    return x, t


@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('dtype', DTYPES)
def test_forward_full_lengths(dtype, reduce):
    x, t = _data(dtype=dtype)
    loss = F.connectionist_temporal_classification(list(x), t, 2, reduce=reduce)
    assert loss.dtype == dtype
    expect = _brute_force(x, t, 2, [4] * 3, [2] * 3)
    if reduce == 'mean':
        expect = expect.mean()
    assert loss.shape == numpy.shape(expect)
    numpy.testing.assert_allclose(loss.array, expect, **TOL[dtype])


@pytest.mark.parametrize('blank', [0, 2])
def test_forward_with_lengths(blank):
    rs = numpy.random.RandomState(3)
    x = rs.uniform(-2, 2, (5, 3, 3))
    t = numpy.array([[1, 1, 0], [1, 0, 0], [1, 0, 1]], numpy.int32)
    if blank == 0:
        t = t + 1
        t[t == 3] = 1
    input_length = numpy.array([5, 3, 4], numpy.int32)
    label_length = numpy.array([2, 1, 0], numpy.int32)
    loss = F.connectionist_temporal_classification(
        [chainlite.Variable(v) for v in x], chainlite.Variable(t), blank,
        chainlite.Variable(input_length), label_length, reduce='no')
    numpy.testing.assert_allclose(
        loss.array, _brute_force(x, t, blank, input_length, label_length), rtol=1e-10)


def test_steps_past_input_length_get_no_gradient():
    x, t = _data()
    xs = [chainlite.Variable(v) for v in x]
    loss = F.connectionist_temporal_classification(
        xs, t, 2, numpy.array([4, 2, 3], numpy.int32), numpy.array([2, 1, 1], numpy.int32))
    loss.backward()
    assert numpy.all(xs[3].grad[1:] == 0) and numpy.all(xs[2].grad[1] == 0)
    assert numpy.all(xs[1].grad[1] != 0)


@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_backward_and_double_backward(reduce):
    x, t = _data(n_time=3)
    il = numpy.array([3, 3, 2], numpy.int32)
    ll = numpy.array([2, 1, 1], numpy.int32)

    def f(*xs):
        return F.connectionist_temporal_classification(list(xs), t, 2, il, ll, reduce=reduce)
    gradients.check_grads(f, tuple(x), order=2)


def test_gradient_is_softmax_minus_posterior_sum_to_zero():
    # The gradient of each step sums to zero over the labels (softmax's invariance).
    x, t = _data()
    xs = [chainlite.Variable(v) for v in x]
    F.connectionist_temporal_classification(xs, t, 2).backward()
    for v in xs:
        numpy.testing.assert_allclose(v.grad.sum(1), 0, atol=1e-12)


def test_float32_in_float32_grads():
    x, t = _data(dtype=numpy.float32)
    xs = [chainlite.Variable(v) for v in x]
    F.connectionist_temporal_classification(xs, t, 2).backward()
    assert all(v.grad.dtype == numpy.float32 for v in xs)


def test_errors():
    x, t = _data()
    ctc = F.connectionist_temporal_classification
    with pytest.raises(TypeError, match='x must be a non-empty list'):
        ctc(x, t, 2)
    with pytest.raises(TypeError, match='blank_symbol must be'):
        ctc(list(x), t, 2.0)
    with pytest.raises(ValueError, match=re.escape('blank_symbol must be in [0, 3)')):
        ctc(list(x), t, 3)
    with pytest.raises(ValueError, match="reduce must be 'mean' or 'no'"):
        ctc(list(x), t, 2, reduce='sum')
    with pytest.raises(type_check.InvalidType, match='connectionist_temporal_classification'):
        ctc(list(x), t.astype(numpy.float32), 2)
    with pytest.raises(type_check.InvalidType, match='input_length'):
        ctc(list(x), t, 2, numpy.array([4, 4], numpy.int32))
    with pytest.raises(ValueError, match='input_length must be in'):
        ctc(list(x), t, 2, numpy.array([5, 4, 4], numpy.int32))
    with pytest.raises(ValueError, match='label_length must be in'):
        ctc(list(x), t, 2, None, numpy.array([3, 1, 1], numpy.int32))
    with pytest.raises(ValueError, match='labels must be in'):
        ctc(list(x), t + 2, 2)
