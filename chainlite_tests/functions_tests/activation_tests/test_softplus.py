"""softplus: forward against NumPy, stability for large |x|, gradients to second order."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.activation.softplus import softplus
from chainlite.utils import type_check

SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 2e-3, 'rtol': 2e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-14, 'rtol': 1e-14}}


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Smooth everywhere; [-3, 3] keeps the gradient (a sigmoid) away from its flat tails.
    return numpy.random.RandomState(seed).uniform(-3, 3, shape).astype(dtype)


def _expected(x, beta):
    return numpy.logaddexp(0, beta * x.astype(numpy.float64)) / beta


@pytest.mark.parametrize('beta', [1.0, 2.5, -0.5])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype, beta):
    x = _uniform(shape, dtype)
    y = softplus(chainlite.Variable(x), beta=beta)
    assert y.shape == shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _expected(x, beta), **TOL[dtype])


@pytest.mark.parametrize('dtype', DTYPES)
def test_large_inputs_are_stable(dtype):
    x = numpy.array([-1000.0, -30.0, 30.0, 1000.0], dtype)
    # exp(-1000) underflowing to 0 is harmless; overflow or NaN would not be.
    with numpy.errstate(over='raise', invalid='raise', divide='raise'):
        y = softplus(x)
    numpy.testing.assert_allclose(y.array, _expected(x, 1.0), **TOL[dtype])


@pytest.mark.parametrize('beta', [1.0, 2.5])
@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape, beta):
    gradient_check.check_backward(lambda x: softplus(x, beta), (_uniform(shape),),
                                  (_uniform(shape, seed=1),))


@pytest.mark.parametrize('beta', [1.0, 2.5])
@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape, beta):
    gradient_check.check_double_backward(
        lambda x: softplus(x, beta), (_uniform(shape),), (_uniform(shape, seed=1),),
        (_uniform(shape, seed=2),))


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_low_precision_in_same_dtype_out(dtype):
    x = chainlite.Variable(_uniform((2, 3), dtype))
    y = softplus(x, numpy.float64(2.0))  # a float64 scalar beta must not promote
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == dtype
    numpy.testing.assert_allclose(
        x.grad, 1 / (1 + numpy.exp(-2 * x.array.astype(numpy.float64))), rtol=2e-3)


def test_array_input():
    x = _uniform((2, 3))
    y = softplus(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, _expected(x, 1.0))


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: Softplus (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        softplus(numpy.zeros((2, 3), dtype))
