"""logsumexp: forward against SciPy, gradients to second order, stability, dtypes, errors."""
import re

import numpy
import pytest
from scipy import special

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.logsumexp import logsumexp
from chainlite.utils import type_check

CASES = [((), None), ((3,), None), ((3,), 0), ((2, 3), 1), ((2, 3), -2),
         ((2, 3, 4), (0, 2)), ((2, 3, 4), (-1, 0)), ((2, 3, 4), None)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _uniform(shape, dtype=numpy.float64, seed=0):
    # logsumexp is smooth everywhere.
    return numpy.random.RandomState(seed).uniform(-2, 2, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, axis', CASES)
def test_forward(shape, axis, dtype):
    x = _uniform(shape, dtype)
    y = logsumexp(chainlite.Variable(x), axis=axis)
    expected = special.logsumexp(x.astype(numpy.float64), axis=axis)
    assert y.shape == numpy.shape(expected)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('shape, axis', CASES)
def test_backward(shape, axis):
    x = _uniform(shape)
    gy = _uniform(numpy.shape(special.logsumexp(x, axis=axis)), seed=1)
    gradient_check.check_backward(lambda x: logsumexp(x, axis), x, gy)


@pytest.mark.parametrize('shape, axis', CASES)
def test_double_backward(shape, axis):
    x = _uniform(shape)
    gy = _uniform(numpy.shape(special.logsumexp(x, axis=axis)), seed=1)
    gradient_check.check_double_backward(lambda x: logsumexp(x, axis), x, gy,
                                         _uniform(shape, seed=2))


@pytest.mark.parametrize('dtype', DTYPES)
def test_large_and_small_inputs_stay_finite(dtype):
    # exp(20) already overflows float16, exp(1000) float64: the shift by the maximum helps.
    big = 20.0 if dtype == numpy.float16 else 1000.0
    x = numpy.array([[big, big], [-big, -big]], dtype)
    y = logsumexp(x, axis=1)
    numpy.testing.assert_allclose(y.array, x[:, 0].astype(numpy.float64) + numpy.log(2),
                                  **TOL[dtype])


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = logsumexp(x, axis=0)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    # The gradient is the softmax: each column sums to one.
    numpy.testing.assert_allclose(x.grad.sum(axis=0), numpy.ones(3), rtol=1e-6)


def test_array_input():
    x = _uniform((2, 3))
    y = logsumexp(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, special.logsumexp(x))


@pytest.mark.parametrize('axis', [2, -3, (0, 5)])
def test_axis_out_of_range_is_invalid(axis):
    msg = re.escape('Invalid operation is performed in: LogSumExp (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        logsumexp(numpy.zeros((2, 3)), axis=axis)


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: LogSumExp (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        logsumexp(numpy.ones((2, 3), dtype))
