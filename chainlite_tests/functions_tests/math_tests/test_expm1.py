"""expm1: forward against NumPy, gradients to second order, dtypes and bad inputs."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.expm1 import expm1
from chainlite.utils import type_check

SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _uniform(shape, dtype=numpy.float64, seed=0):
    # expm1 is smooth everywhere; [-2, 2] keeps float16 results well inside its range.
    return numpy.random.RandomState(seed).uniform(-2, 2, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    x = _uniform(shape, dtype)
    y = expm1(chainlite.Variable(x))
    assert y.shape == shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, numpy.expm1(x.astype(numpy.float64)), **TOL[dtype])


def test_forward_is_accurate_near_zero():
    # exp(x) - 1 would give 0 or a value with few correct digits here.
    x = numpy.array([1e-12, -1e-12, 1e-20])
    numpy.testing.assert_allclose(expm1(x).array, x, rtol=1e-10)


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    gradient_check.check_backward(expm1, (_uniform(shape),), (_uniform(shape, seed=1),))


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    gradient_check.check_double_backward(
        expm1, (_uniform(shape),), (_uniform(shape, seed=1),), (_uniform(shape, seed=2),))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = expm1(x)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    numpy.testing.assert_allclose(x.grad, numpy.exp(x.array), rtol=1e-6)


def test_array_input():
    x = _uniform((2, 3))
    y = expm1(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, numpy.expm1(x))


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.int64, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: expm1 (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        expm1(numpy.zeros((2, 3), dtype))
