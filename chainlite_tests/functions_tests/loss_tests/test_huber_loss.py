"""huber_loss: both pieces against NumPy, both reductions; gradients in x and t."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.loss.huber_loss import huber_loss
from chainlite.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}
SHAPES = [(3, 4), (2, 3, 2)]
DELTA = 1.0


def _inputs(shape, dtype=numpy.float64, seed=0):
    # |x - t| lands in (0.1, 0.9) or (1.1, 3): both pieces, away from the joint at delta.
    rs = numpy.random.RandomState(seed)
    mag = numpy.where(rs.rand(*shape) < 0.5, rs.uniform(0.1, 0.9, shape),
                      rs.uniform(1.1, 3, shape))
    t = rs.uniform(-1, 1, shape)
    x = t + mag * rs.choice([-1, 1], shape)
    return x.astype(dtype), t.astype(dtype)


def _expected(x, t, reduce):
    a = x.astype(numpy.float64) - t
    y = numpy.where(numpy.abs(a) <= DELTA, 0.5 * a ** 2, DELTA * (numpy.abs(a) - 0.5 * DELTA))
    return y.sum(axis=1) if reduce == 'sum_along_second_axis' else y


@pytest.mark.parametrize('reduce', ['sum_along_second_axis', 'no'])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype, reduce):
    x, t = _inputs(shape, dtype)
    y = huber_loss(chainlite.Variable(x), t, DELTA, reduce=reduce)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _expected(x, t, reduce), **TOL[dtype])


@pytest.mark.parametrize('reduce', ['sum_along_second_axis', 'no'])
@pytest.mark.parametrize('shape', SHAPES)
def test_backward_and_double_backward(shape, reduce):
    x, t = _inputs(shape)
    rs = numpy.random.RandomState(1)
    gy = rs.uniform(-1, 1, _expected(x, t, reduce).shape)
    f = lambda x, t: huber_loss(x, t, DELTA, reduce)  # noqa: E731
    gradient_check.check_backward(f, (x, t), gy)
    gradient_check.check_double_backward(f, (x, t), gy, (rs.uniform(-1, 1, shape),
                                                         rs.uniform(-1, 1, shape)))


def test_default_reduce_sums_axis_1():
    y = huber_loss(numpy.array([[0.5, 3.0]]), numpy.zeros((1, 2)), 1.0)
    numpy.testing.assert_allclose(y.array, [2.625])


def test_float32_in_float32_out():
    x, t = _inputs((3, 4), numpy.float32)
    x = chainlite.Variable(x)
    y = huber_loss(x, t, 1.0)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32


@pytest.mark.parametrize('x, t, reduce', [
    (numpy.zeros((2, 3)), numpy.zeros((2, 2)), 'no'),
    (numpy.zeros((2, 3)), numpy.zeros((2, 3), numpy.float32), 'no'),
    (numpy.zeros(3), numpy.zeros(3), 'sum_along_second_axis')])
def test_invalid_types(x, t, reduce):
    msg = re.escape('Invalid operation is performed in: HuberLoss (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        huber_loss(x, t, 1.0, reduce=reduce)


def test_invalid_reduce():
    with pytest.raises(ValueError, match='reduce'):
        huber_loss(numpy.zeros((2, 3)), numpy.zeros((2, 3)), 1.0, reduce='mean')
