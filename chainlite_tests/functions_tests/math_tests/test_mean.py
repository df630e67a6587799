"""mean: forward against NumPy, gradients to second order, dtypes and bad inputs."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.mean import mean
from chainlite.utils import type_check

CASES = [((), None), ((3,), None), ((3,), 0), ((2, 3), 1), ((2, 3), -2),
         ((2, 3, 4), (0, 2)), ((2, 3, 4), [-1, 0]), ((2, 3, 4), None)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _uniform(shape, dtype=numpy.float64, seed=0):
    # The mean is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _np_axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


@pytest.mark.parametrize('keepdims', [False, True])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, axis', CASES)
def test_forward(shape, axis, dtype, keepdims):
    x = _uniform(shape, dtype)
    y = mean(chainlite.Variable(x), axis=axis, keepdims=keepdims)
    expected = x.astype(numpy.float64).mean(axis=_np_axis(axis), keepdims=keepdims)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('keepdims', [False, True])
@pytest.mark.parametrize('shape, axis', CASES)
def test_backward(shape, axis, keepdims):
    x = _uniform(shape)
    gy = _uniform(x.mean(axis=_np_axis(axis), keepdims=keepdims).shape, seed=1)
    gradient_check.check_backward(lambda x: mean(x, axis, keepdims=keepdims), x, gy)


@pytest.mark.parametrize('keepdims', [False, True])
@pytest.mark.parametrize('shape, axis', CASES)
def test_double_backward(shape, axis, keepdims):
    x = _uniform(shape)
    gy = _uniform(x.mean(axis=_np_axis(axis), keepdims=keepdims).shape, seed=1)
    # Squared inside, so second-order terms must flow through mean's backward.
    gradient_check.check_double_backward(lambda x: mean(x * x, axis, keepdims=keepdims), x,
                                         gy, _uniform(shape, seed=2))


def test_weights_delegate_to_average():
    x, w = _uniform((2, 3)), _uniform((2, 3), seed=1) + 2
    numpy.testing.assert_allclose(mean(x, 1, w).array, numpy.average(x, 1, w))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = mean(x, axis=0)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    numpy.testing.assert_allclose(x.grad, numpy.full((2, 3), 0.5))


def test_array_input():
    x = _uniform((2, 3))
    y = mean(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, x.mean())


@pytest.mark.parametrize('axis', [2, -3, (0, 5)])
def test_axis_out_of_range_is_invalid(axis):
    msg = re.escape('Invalid operation is performed in: Mean (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        mean(numpy.zeros((2, 3)), axis=axis)


def test_bad_axes_are_errors():
    with pytest.raises(ValueError, match='duplicate'):
        mean(numpy.zeros((2, 3)), axis=(1, -1))
    with pytest.raises(TypeError, match='axis'):
        mean(numpy.zeros((2, 3)), axis=0.5)


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: Mean (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        mean(numpy.ones((2, 3), dtype))
