"""bernoulli_nll: -log-likelihood against NumPy's log(sigmoid), three reductions."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.loss.bernoulli_nll import bernoulli_nll
from chainlite.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 2e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}
SHAPES = [(), (3,), (2, 3)]
REDUCES = ['sum', 'mean', 'no']


def _inputs(shape, dtype=numpy.float64, seed=0):
    # Binary data and logits; softplus is smooth everywhere.
    rs = numpy.random.RandomState(seed)
    x = rs.randint(0, 2, shape).astype(dtype)
    y = rs.uniform(-3, 3, shape).astype(dtype)
    return x, y


def _expected(x, y, reduce):
    x, y = x.astype(numpy.float64), y.astype(numpy.float64)
    p = 1 / (1 + numpy.exp(-y))
    loss = -(x * numpy.log(p) + (1 - x) * numpy.log(1 - p))
    return {'sum': loss.sum(), 'mean': loss.mean(), 'no': loss}[reduce]


@pytest.mark.parametrize('reduce', REDUCES)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype, reduce):
    x, y = _inputs(shape, dtype)
    loss = bernoulli_nll(x, chainlite.Variable(y), reduce)
    assert loss.dtype == dtype
    numpy.testing.assert_allclose(loss.array, _expected(x, y, reduce), **TOL[dtype])


@pytest.mark.parametrize('reduce', REDUCES)
@pytest.mark.parametrize('shape', SHAPES)
def test_backward_and_double_backward(shape, reduce):
    x, y = _inputs(shape)
    rs = numpy.random.RandomState(1)
    gy = rs.uniform(-1, 1, () if reduce != 'no' else shape)

    def f(x, y):
        return bernoulli_nll(x, y, reduce)
    gradient_check.check_backward(f, (x, y), gy)
    gradient_check.check_double_backward(f, (x, y), gy, (rs.uniform(-1, 1, shape),
                                                         rs.uniform(-1, 1, shape)))


def test_large_logits_are_stable():
    loss = bernoulli_nll(numpy.array([0.0, 1.0]), numpy.array([1000.0, -1000.0]), 'no')
    numpy.testing.assert_allclose(loss.array, [1000.0, 1000.0])


def test_float32_in_float32_out():
    x, y = _inputs((2, 3), numpy.float32)
    y = chainlite.Variable(y)
    loss = bernoulli_nll(x, y)
    assert loss.dtype == numpy.float32
    loss.backward()
    assert y.grad.dtype == numpy.float32


@pytest.mark.parametrize('x, y', [(numpy.zeros(3), numpy.zeros(2)),
                                  (numpy.zeros(3), numpy.zeros(3, numpy.float32)),
                                  (numpy.zeros(3, numpy.int32), numpy.zeros(3, numpy.int32))])
def test_invalid_types(x, y):
    msg = re.escape('Invalid operation is performed in: BernoulliNLL (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        bernoulli_nll(x, y)


def test_invalid_reduce():
    with pytest.raises(ValueError, match='reduce'):
        bernoulli_nll(numpy.zeros(2), numpy.zeros(2), reduce='avg')
