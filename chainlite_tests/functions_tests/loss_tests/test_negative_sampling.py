"""negative_sampling against a per-row NumPy loop; ignored rows; gradients to second order."""
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
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _sampler(shape):
    # Deterministic samples, so repeated forward passes (numerical gradients) agree.
    return (numpy.arange(numpy.prod(shape)) % 5).reshape(shape).astype(numpy.int32)


def _data(t, dtype=numpy.float64, seed=0):
    rs = numpy.random.RandomState(seed)
    x = rs.uniform(-1, 1, (len(t), 3)).astype(dtype)
    W = rs.uniform(-1, 1, (5, 3)).astype(dtype)
    return x, numpy.array(t, numpy.int32), W


def _expected(x, t, W, samples, reduce):
    x, W = x.astype(numpy.float64), W.astype(numpy.float64)
    loss = numpy.zeros(len(x))
    for i in range(len(x)):
        if t[i] == -1:
            continue
        f = W[samples[i]] @ x[i]
        f[0] *= -1
        loss[i] = numpy.logaddexp(f, 0).sum()
    return loss.sum() if reduce == 'sum' else loss


@pytest.mark.parametrize('t', [[0, 2], [-1, 1, 2]])
@pytest.mark.parametrize('reduce', ['sum', 'no'])
@pytest.mark.parametrize('dtype', DTYPES)
def test_forward(dtype, reduce, t):
    x, t, W = _data(t, dtype)
    y, samples = F.negative_sampling(chainlite.Variable(x), t, W, _sampler, 2, reduce=reduce,
                                     return_samples=True)
    assert y.dtype == dtype
    assert samples.dtype == numpy.int32 and samples.shape == (len(t), 3)
    numpy.testing.assert_array_equal(samples[:, 0], t)
    numpy.testing.assert_allclose(y.array, _expected(x, t, W, samples, reduce), **TOL[dtype])


@pytest.mark.parametrize('t', [[0, 2], [-1, 1, 2]])
@pytest.mark.parametrize('reduce', ['sum', 'no'])
def test_backward_and_double_backward(reduce, t):
    x, t, W = _data(t)
    gradients.check_grads(lambda x, W: F.negative_sampling(x, t, W, _sampler, 2, reduce),
                          (x, W), order=2)


def test_ignored_rows_send_no_gradient():
    x, t, W = _data([-1, 1, 2])
    xv, Wv = chainlite.Variable(x), chainlite.Variable(W)
    F.negative_sampling(xv, t, Wv, _sampler, 2).backward()
    assert numpy.all(xv.grad[0] == 0) and numpy.all(xv.grad[1:] != 0)


def test_draws_from_the_sampler():
    x, t, W = _data([0, 2, 4])
    shapes = []

    def sampler(shape):
        shapes.append(shape)
        return numpy.full(shape, 3, numpy.int32)
    _, samples = F.negative_sampling(x, t, W, sampler, 4, return_samples=True)
    assert shapes == [(3, 5)]
    assert (samples[:, 1:] == 3).all()


def test_float32_grads():
    x, t, W = _data([0, 2], numpy.float32)
    xv, Wv = chainlite.Variable(x), chainlite.Variable(W)
    F.negative_sampling(xv, t, Wv, _sampler, 2).backward()
    assert xv.grad.dtype == numpy.float32 and Wv.grad.dtype == numpy.float32


def test_errors():
    x, t, W = _data([0, 2])
    with pytest.raises(ValueError, match="reduce must be 'sum' or 'no'"):
        F.negative_sampling(x, t, W, _sampler, 2, reduce='mean')
    msg = re.escape('Invalid operation is performed in: negative_sampling (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        F.negative_sampling(x, t.astype(numpy.int64), W, _sampler, 2)
    with pytest.raises(type_check.InvalidType, match='W.dtype'):
        F.negative_sampling(x, t, W.astype(numpy.float32), _sampler, 2)
    with pytest.raises(type_check.InvalidType, match='W.shape'):
        F.negative_sampling(x, t, W[:, :2], _sampler, 2)
