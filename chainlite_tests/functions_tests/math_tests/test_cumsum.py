"""cumsum: forward against NumPy, gradients to second order, dtypes and bad inputs."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.cumsum import cumsum
from chainlite.utils import type_check

CASES = [((), None), ((3,), None), ((3,), 0), ((3,), -1), ((2, 3), None), ((2, 3), 1),
         ((2, 3), -2), ((2, 3, 4), 1), ((2, 3, 4), numpy.int64(2))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _uniform(shape, dtype=numpy.float64, seed=0):
    # A cumulative sum is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, axis', CASES)
def test_forward(shape, axis, dtype):
    x = _uniform(shape, dtype)
    y = cumsum(chainlite.Variable(x), axis=axis)
    expected = numpy.cumsum(x.astype(numpy.float64), axis=axis)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('shape, axis', CASES)
def test_backward(shape, axis):
    x = _uniform(shape)
    gy = _uniform(numpy.cumsum(x, axis=axis).shape, seed=1)
    gradient_check.check_backward(lambda x: cumsum(x, axis), x, gy)


@pytest.mark.parametrize('shape, axis', CASES)
def test_double_backward(shape, axis):
    x = _uniform(shape)
    gy = _uniform(numpy.cumsum(x, axis=axis).shape, seed=1)
    # Squared inside, so second-order terms must flow through cumsum's backward.
    gradient_check.check_double_backward(lambda x: cumsum(x * x, axis), x, gy,
                                         _uniform(shape, seed=2))


def test_known_gradient():
    x = chainlite.Variable(numpy.zeros(3))
    y = cumsum(x)
    y.grad = numpy.array([1.0, 2.0, 3.0])
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [6.0, 5.0, 3.0])


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = cumsum(x, axis=0)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_array_input():
    x = _uniform((2, 3))
    y = cumsum(x, 1)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, numpy.cumsum(x, 1))


@pytest.mark.parametrize('shape, axis', [((2, 3), 2), ((2, 3), -3), ((), 0)])
def test_axis_out_of_range_is_invalid(shape, axis):
    msg = re.escape('Invalid operation is performed in: Cumsum (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        cumsum(numpy.zeros(shape), axis=axis)


@pytest.mark.parametrize('axis', [(0,), (0, 1), 1.0])
def test_non_int_axis_is_a_type_error(axis):
    with pytest.raises(TypeError, match='Cumsum'):
        cumsum(numpy.zeros((2, 3)), axis=axis)


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: Cumsum (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        cumsum(numpy.ones((2, 3), dtype))
