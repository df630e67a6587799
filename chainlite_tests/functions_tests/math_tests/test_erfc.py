"""erfc: forward against SciPy, gradients to second order, dtypes and bad inputs."""
import re

import numpy
import pytest
from scipy import special

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.erfc import erfc
from chainlite.utils import type_check

SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _uniform(shape, dtype=numpy.float64, seed=0, low=-2, high=2):
    # erfc is smooth everywhere; [-2, 2] keeps the derivative away from underflow.
    return numpy.random.RandomState(seed).uniform(low, high, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    x = _uniform(shape, dtype)
    y = erfc(chainlite.Variable(x))
    assert y.shape == shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, special.erfc(x.astype(numpy.float64)),
                                  **TOL[dtype])


def test_known_values():
    x, expected = ([0.0, 1.0, -1.0], [1.0, 0.15729920705028513, 1.8427007929497148])
    numpy.testing.assert_allclose(erfc(numpy.array(x)).array, expected, rtol=1e-12)


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    gy = _uniform(shape, seed=1, low=-1, high=1)
    gradient_check.check_backward(erfc, _uniform(shape), gy)


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    gradient_check.check_double_backward(
        erfc, _uniform(shape), _uniform(shape, seed=1, low=-1, high=1),
        _uniform(shape, seed=2, low=-1, high=1))


def test_gradient_against_closed_form():
    x = _uniform((2, 3))
    v = chainlite.Variable(x)
    y = erfc(v)
    y.grad = numpy.ones_like(x)
    y.backward()
    expected = -2 / numpy.sqrt(numpy.pi) * numpy.exp(-x ** 2)
    numpy.testing.assert_allclose(v.grad, expected, rtol=1e-10)


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = erfc(x)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_float16_gradient_stays_float16():
    x = chainlite.Variable(_uniform((3,), numpy.float16))
    y = erfc(x)
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float16


def test_array_input():
    x = _uniform((2, 3))
    y = erfc(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, special.erfc(x))


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.int64, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: erfc (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        erfc(numpy.zeros((2, 3), dtype))
