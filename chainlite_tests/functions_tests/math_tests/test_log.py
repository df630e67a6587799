"""F.log: forward against NumPy, gradients to second order, dtypes and bad inputs."""
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


def _positive(shape, dtype=numpy.float64, seed=0):
    # log is singular at 0 and undefined below: [0.5, 3] keeps the numerical gradient
    # (eps = 1e-3) far from the singularity, where 1/x and -1/x**2 stay moderate.
    return numpy.random.RandomState(seed).uniform(0.5, 3, shape).astype(dtype)


def _uniform(shape, seed):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    x = _positive(shape, dtype)
    y = F.log(chainlite.Variable(x))
    assert y.shape == shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, numpy.log(x.astype(numpy.float64)), **TOL[dtype])


def test_forward_known_values():
    y = F.log(numpy.array([1.0, numpy.e, numpy.e ** -2]))
    numpy.testing.assert_allclose(y.array, [0.0, 1.0, -2.0], atol=1e-15)


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    gradient_check.check_backward(F.log, (_positive(shape),), (_uniform(shape, 1),))


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    gradient_check.check_double_backward(
        F.log, (_positive(shape),), (_uniform(shape, 1),), (_uniform(shape, 2),))


def test_float32_in_float32_out():
    x = chainlite.Variable(_positive((2, 3), numpy.float32))
    y = F.log(x)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    numpy.testing.assert_allclose(x.grad, 1 / x.array, rtol=1e-6)


def test_array_input():
    x = _positive((2, 3))
    y = F.log(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, numpy.log(x))


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.int64, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: log (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        F.log(numpy.ones((2, 3), dtype))
