"""leaky_relu: forward against NumPy, gradients to second order, slope option, dtypes."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.activation.leaky_relu import leaky_relu
from chainlite.utils import type_check

SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-3, 'rtol': 1e-3},
       numpy.float32: {'atol': 1e-7, 'rtol': 1e-6},
       numpy.float64: {'atol': 0, 'rtol': 1e-15}}


def _away_from_zero(shape, dtype=numpy.float64, seed=0):
    # The kink is at 0: |x| >= 0.1 keeps finite differences (eps 1e-3) on one side.
    rng = numpy.random.RandomState(seed)
    x = rng.uniform(0.1, 1, shape) * rng.choice([-1, 1], shape)
    return numpy.asarray(x).astype(dtype)


def _uniform(shape, seed):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


def _expected(x, slope):
    x = x.astype(numpy.float64)
    return numpy.where(x >= 0, x, slope * x)


@pytest.mark.parametrize('slope', [0.2, 0.01, -0.5])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype, slope):
    x = _away_from_zero(shape, dtype)
    y = leaky_relu(chainlite.Variable(x), slope=slope)
    assert y.shape == shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _expected(x, slope), **TOL[dtype])


def test_default_slope_is_0_2():
    numpy.testing.assert_allclose(leaky_relu(numpy.array([-1.0, 1.0])).array, [-0.2, 1.0])


@pytest.mark.parametrize('slope', [0.2, -0.5])
@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape, slope):
    gradient_check.check_backward(lambda x: leaky_relu(x, slope), (_away_from_zero(shape),),
                                  (_uniform(shape, 1),))


@pytest.mark.parametrize('slope', [0.2, -0.5])
@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape, slope):
    gradient_check.check_double_backward(
        lambda x: leaky_relu(x, slope), (_away_from_zero(shape),), (_uniform(shape, 1),),
        (_uniform(shape, 2),))


def test_gradient_at_zero_is_one():
    x = chainlite.Variable(numpy.array([0.0, -1.0]))
    y = leaky_relu(x)
    y.grad = numpy.ones(2)
    y.backward()
    numpy.testing.assert_allclose(x.grad, [1.0, 0.2])


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_low_precision_in_same_dtype_out(dtype):
    x = chainlite.Variable(_away_from_zero((2, 3), dtype))
    y = leaky_relu(x, numpy.float64(0.3))  # a float64 scalar slope must not promote
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == dtype
    numpy.testing.assert_allclose(x.grad, numpy.where(x.array >= 0, 1, 0.3), rtol=1e-3)


def test_array_input():
    x = _away_from_zero((2, 3))
    y = leaky_relu(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, _expected(x, 0.2))


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: LeakyReLU (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        leaky_relu(numpy.zeros((2, 3), dtype))
