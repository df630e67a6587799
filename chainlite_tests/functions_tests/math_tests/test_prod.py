"""prod: forward against NumPy, gradients to second order (with zeros too), dtypes, errors."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.prod import prod
from chainlite.utils import type_check

CASES = [((), None), ((3,), None), ((3,), 0), ((2, 3), 1), ((2, 3), -2),
         ((2, 3, 4), (0, 2)), ((2, 3, 4), (-1, 0)), ((2, 3, 4), None)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _uniform(shape, dtype=numpy.float64, seed=0, low=0.5, high=1.5):
    # Factors near 1 keep products of 24 elements well inside float16's range.
    r = numpy.random.RandomState(seed)
    return numpy.asarray(r.uniform(low, high, shape) * r.choice([-1, 1], shape), dtype)


def _gy(x, axis, keepdims):
    return numpy.random.RandomState(1).uniform(-1, 1, x.prod(axis=axis, keepdims=keepdims).shape)


@pytest.mark.parametrize('keepdims', [False, True])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, axis', CASES)
def test_forward(shape, axis, dtype, keepdims):
    x = _uniform(shape, dtype)
    y = prod(chainlite.Variable(x), axis=axis, keepdims=keepdims)
    expected = x.astype(numpy.float64).prod(axis=axis, keepdims=keepdims)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('keepdims', [False, True])
@pytest.mark.parametrize('shape, axis', CASES)
def test_backward(shape, axis, keepdims):
    x = _uniform(shape)
    gradient_check.check_backward(lambda x: prod(x, axis, keepdims), x, _gy(x, axis, keepdims))


@pytest.mark.parametrize('keepdims', [False, True])
@pytest.mark.parametrize('shape, axis', CASES)
def test_double_backward(shape, axis, keepdims):
    x = _uniform(shape)
    gradient_check.check_double_backward(lambda x: prod(x, axis, keepdims), x,
                                         _gy(x, axis, keepdims), _uniform(shape, seed=2))


@pytest.mark.parametrize('zeros', [(1,), (1, 7), (0, 5, 13)])
@pytest.mark.parametrize('axis', [None, 1, (0, 2)])
def test_gradients_with_zeros(axis, zeros):
    # The gradient is a product of the other elements, never y / x: zeros are fine, to
    # second order too.
    x = _uniform((2, 3, 4))
    x.flat[list(zeros)] = 0
    gy = _gy(x, axis, False)
    gradient_check.check_backward(lambda x: prod(x, axis), x, gy)
    gradient_check.check_double_backward(lambda x: prod(x, axis), x, gy,
                                         _uniform(x.shape, seed=2))


def test_known_gradient_with_a_zero():
    x = chainlite.Variable(numpy.array([2.0, 0.0, 3.0]))
    prod(x).backward()
    numpy.testing.assert_array_equal(x.grad, [0.0, 6.0, 0.0])


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = prod(x, axis=0)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_array_input():
    x = _uniform((2, 3))
    y = prod(x, axis=-1)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, x.prod(axis=-1))


@pytest.mark.parametrize('axis', [2, -3, (0, 5)])
def test_axis_out_of_range_is_invalid(axis):
    msg = re.escape('Invalid operation is performed in: Prod (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        prod(numpy.zeros((2, 3)), axis=axis)


def test_bad_axes_are_errors():
    with pytest.raises(ValueError, match='duplicate'):
        prod(numpy.zeros((2, 3)), axis=(1, -1))
    with pytest.raises(TypeError, match='axis'):
        prod(numpy.zeros((2, 3)), axis=1.0)


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: Prod (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        prod(numpy.ones((2, 3), dtype))
