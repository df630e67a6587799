"""arctan: forward against NumPy, gradients to second order, dtypes and bad inputs."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.arctan import arctan
from chainlite.utils import type_check

SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _uniform(shape, dtype=numpy.float64, seed=0):
    # arctan is smooth everywhere: [-3, 3] covers its bend.
    return numpy.random.RandomState(seed).uniform(-3, 3, shape).astype(dtype)


def _gy(shape, seed=1):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    x = _uniform(shape, dtype)
    y = arctan(chainlite.Variable(x))
    assert y.shape == shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, numpy.arctan(x.astype(numpy.float64)), **TOL[dtype])


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    gradient_check.check_backward(arctan, (_uniform(shape),), (_gy(shape),))


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    gradient_check.check_double_backward(
        arctan, (_uniform(shape),), (_gy(shape),), (_gy(shape, seed=2),))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = arctan(x)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    x64 = x.array.astype(numpy.float64)
    numpy.testing.assert_allclose(x.grad, 1 / (1 + x64 ** 2), rtol=1e-5)


def test_array_input():
    x = _uniform((2, 3))
    y = arctan(x)
    assert isinstance(y, chainlite.Variable)
    assert y.creator_node is None
    numpy.testing.assert_allclose(y.array, numpy.arctan(x))


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.int64, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: arctan (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        arctan(numpy.zeros((2, 3), dtype))
    with pytest.raises(type_check.InvalidType, match=msg):
        arctan(chainlite.Variable(numpy.zeros((2, 3), dtype)))


def test_known_values():
    numpy.testing.assert_allclose(arctan(numpy.array([0.0, 1.0, -1.0, numpy.inf])).array,
                                  [0.0, numpy.pi / 4, -numpy.pi / 4, numpy.pi / 2])
