"""expand_dims: every valid axis (negative ones too), a view, gradients, dtypes and errors."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.expand_dims import expand_dims
from chainlite.utils import type_check

# (input shape, axis): axis runs over -ndim - 1 .. ndim.
CASES = [((), 0), ((), -1), ((3,), 0), ((3,), 1), ((3,), -1), ((3,), -2), ((2, 3), 1),
         ((2, 3), 2), ((2, 3), -3), ((2, 3, 4), 3), ((2, 3, 4), -2)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Inserting an axis is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, axis', CASES)
def test_forward(shape, axis, dtype):
    x = _uniform(shape, dtype)
    y = expand_dims(chainlite.Variable(x), axis)
    expected = numpy.expand_dims(x, axis)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, expected)
    assert numpy.shares_memory(y.array, x)  # a view, no copy


@pytest.mark.parametrize('shape, axis', CASES)
def test_backward(shape, axis):
    x = _uniform(shape)
    gy = _uniform(numpy.expand_dims(x, axis).shape, seed=1)
    gradient_check.check_backward(lambda x: expand_dims(x, axis), (x,), (gy,))


@pytest.mark.parametrize('shape, axis', CASES)
def test_double_backward(shape, axis):
    x, ggx = _uniform(shape), _uniform(shape, seed=2)
    gy = _uniform(numpy.expand_dims(x, axis).shape, seed=1)
    gradient_check.check_double_backward(lambda x: expand_dims(x, axis), (x,), (gy,), (ggx,))
    gradient_check.check_double_backward(lambda x: expand_dims(x * x, axis), (x,), (gy,),
                                         (ggx,))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = expand_dims(x, 0)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    assert x.grad.shape == (2, 3)


def test_array_input_and_numpy_int_axis():
    x = _uniform((2, 3))
    y = expand_dims(x, numpy.int64(-1))
    assert isinstance(y, chainlite.Variable)
    assert y.shape == (2, 3, 1)


def test_integer_input_is_accepted():
    y = expand_dims(numpy.arange(3), 0)
    assert y.dtype == numpy.arange(3).dtype
    numpy.testing.assert_array_equal(y.array, [[0, 1, 2]])


@pytest.mark.parametrize('shape, axis', [((), 1), ((), -2), ((2, 3), 3), ((2, 3), -4)])
def test_axis_out_of_range_is_invalid(shape, axis):
    msg = re.escape('Invalid operation is performed in: ExpandDims (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        expand_dims(numpy.zeros(shape), axis)


@pytest.mark.parametrize('axis', [1.0, None, (0,), True])
def test_non_integer_axis_is_a_type_error(axis):
    with pytest.raises(TypeError, match='expand_dims'):
        expand_dims(numpy.zeros(3), axis)
