"""F.reshape: shapes with -1, 0-d in and out, gradients, dtypes and size errors."""
import re

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import gradient_check
from chainlite.functions.array import reshape
from chainlite.utils import type_check

# (input shape, target shape)
CASES = [((), (1,)), ((), (1, 1)), ((1,), ()), ((6,), (2, 3)), ((2, 3), (3, 2)),
         ((2, 3), (-1,)), ((2, 3), (3, -1)), ((2, 3, 4), (4, -1, 2)), ((2, 3), (1, 6, 1)),
         ((2, 3), 6), ((2, 3), [6, 1])]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Reshape is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _expected_shape(x, shape):
    return numpy.reshape(x, shape).shape


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('in_shape, shape', CASES)
def test_forward(in_shape, shape, dtype):
    x = _uniform(in_shape, dtype)
    y = F.reshape(chainlite.Variable(x), shape)
    assert y.dtype == dtype
    assert y.shape == _expected_shape(x, shape)
    # Same data, same order: exact in every dtype.
    numpy.testing.assert_array_equal(y.array, numpy.reshape(x, shape))


@pytest.mark.parametrize('in_shape, shape', CASES)
def test_backward(in_shape, shape):
    x = _uniform(in_shape)
    gy = _uniform(_expected_shape(x, shape), seed=1)
    gradient_check.check_backward(lambda x: F.reshape(x, shape), (x,), (gy,))


@pytest.mark.parametrize('in_shape, shape', CASES)
def test_double_backward(in_shape, shape):
    x, ggx = _uniform(in_shape), _uniform(in_shape, seed=2)
    gy = _uniform(_expected_shape(x, shape), seed=1)
    gradient_check.check_double_backward(lambda x: F.reshape(x, shape), (x,), (gy,), (ggx,))
    gradient_check.check_double_backward(lambda x: F.reshape(x * x, shape), (x,), (gy,),
                                         (ggx,))


def test_gradient_has_the_input_shape():
    x = chainlite.Variable(_uniform((2, 3)))
    y = F.reshape(x, (3, 2))
    y.grad = numpy.arange(6.0).reshape(3, 2)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, numpy.arange(6.0).reshape(2, 3))


def test_variable_method():
    x = chainlite.Variable(_uniform((2, 3)))
    assert x.reshape(3, 2).shape == (3, 2)
    assert x.reshape((6,)).shape == (6,)


def test_same_shape_returns_a_variable():
    x = _uniform((2, 3))
    y = F.reshape(x, (2, 3))
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, x)


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = F.reshape(x, (-1,))
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    assert x.grad.shape == (2, 3)


def test_integer_arrays_are_reshaped_too():
    y = F.reshape(numpy.arange(6), (2, 3))
    numpy.testing.assert_array_equal(y.array, numpy.arange(6).reshape(2, 3))


@pytest.mark.parametrize('in_shape, shape', [((2, 3), (4,)), ((2, 3), (4, -1)),
                                             ((2, 3), (7, 1)), ((), (2,)), ((2, 3), ())])
def test_wrong_size_is_invalid(in_shape, shape):
    msg = re.escape('Invalid operation is performed in: Reshape (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        F.reshape(numpy.zeros(in_shape), shape)
    with pytest.raises(type_check.InvalidType, match=msg):
        reshape.Reshape(shape).apply((numpy.zeros(in_shape),))


def test_two_unknown_dimensions_are_an_error():
    with pytest.raises(ValueError):
        F.reshape(numpy.zeros((2, 3)), (-1, -1))


def test_unknown_dimension_beside_zero_is_an_error():
    # -1 cannot be inferred from a size-0 array: NumPy refuses it as well.
    with pytest.raises(ValueError):
        F.reshape(numpy.zeros((0, 3)), (0, -1))
