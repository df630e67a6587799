"""black_out against a NumPy softmax over the true class and the samples."""
import re

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite.testing import gradients
from chainlite.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _data(dtype=numpy.float64, seed=0):
    rs = numpy.random.RandomState(seed)
    x = rs.uniform(-1, 1, (4, 3)).astype(dtype)
    t = rs.randint(0, 6, 4).astype(numpy.int32)
    W = rs.uniform(-1, 1, (6, 3)).astype(dtype)
    samples = rs.randint(0, 6, (4, 2)).astype(numpy.int32)
    return x, t, W, samples


def _expected(x, t, W, samples, reduce):
    x, W = x.astype(numpy.float64), W.astype(numpy.float64)
    loss = []
    for i in range(len(x)):
        y = W[numpy.concatenate([[t[i]], samples[i]])] @ x[i]
        p = numpy.exp(y) / numpy.exp(y).sum()
        loss.append(-numpy.log(p[0]) - numpy.log(1 - p[1:]).sum())
    loss = numpy.array(loss)
    return loss.mean() if reduce == 'mean' else loss


@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('dtype', DTYPES)
def test_forward(dtype, reduce):
    x, t, W, samples = _data(dtype)
    y = F.black_out(chainlite.Variable(x), t, W, chainlite.Variable(samples), reduce=reduce)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _expected(x, t, W, samples, reduce), **TOL[dtype])


@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_backward_and_double_backward(reduce):
    x, t, W, samples = _data()
    gradients.check_grads(lambda x, W: F.black_out(x, t, W, samples, reduce), (x, W), order=2)


def test_errors():
    x, t, W, samples = _data()
    with pytest.raises(ValueError, match="reduce must be 'mean' or 'no'"):
        F.black_out(x, t, W, samples, reduce='sum')
    msg = re.escape('Invalid operation is performed in: black_out (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        F.black_out(x, t, W, samples[:2])
    with pytest.raises(type_check.InvalidType, match='W.dtype'):
        F.black_out(x, t, W.astype(numpy.float32), samples)
