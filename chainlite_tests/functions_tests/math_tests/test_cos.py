"""F.cos: forward against NumPy, gradients to second order, dtypes and bad inputs."""
import re

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import gradient_check
from chainlite.utils import type_check

SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _uniform(shape, dtype=numpy.float64, seed=0):
    # cos is smooth everywhere: a full period, negative values included.
    return numpy.random.RandomState(seed).uniform(-numpy.pi, numpy.pi, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    x = _uniform(shape, dtype)
    y = F.cos(chainlite.Variable(x))
    assert y.shape == shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, numpy.cos(x.astype(numpy.float64)), **TOL[dtype])


def test_forward_known_values():
    y = F.cos(numpy.array([0.0, numpy.pi, -numpy.pi / 3]))
    numpy.testing.assert_allclose(y.array, [1.0, -1.0, 0.5], atol=1e-15)


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    gradient_check.check_backward(F.cos, (_uniform(shape),), (_uniform(shape, seed=1),))


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    gradient_check.check_double_backward(
        F.cos, (_uniform(shape),), (_uniform(shape, seed=1),), (_uniform(shape, seed=2),))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = F.cos(x)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    numpy.testing.assert_allclose(x.grad, -numpy.sin(x.array), rtol=1e-6, atol=1e-7)


def test_array_input():
    x = _uniform((2, 3))
    y = F.cos(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, numpy.cos(x))


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.int64, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: cos (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        F.cos(numpy.zeros((2, 3), dtype))
