"""swapaxes: pairs of axes (negative, equal), a view, gradients, dtypes and errors."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.swapaxes import swapaxes
from chainlite.utils import type_check

# (input shape, axis1, axis2)
CASES = [((3,), 0, 0), ((2, 3), 0, 1), ((2, 3), 1, 0), ((2, 3), -1, 0), ((2, 3), 1, 1),
         ((2, 3, 4), 0, 2), ((2, 3, 4), -1, -2), ((2, 3, 4, 5), 1, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Swapping axes is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, axis1, axis2', CASES)
def test_forward(shape, axis1, axis2, dtype):
    x = _uniform(shape, dtype)
    y = swapaxes(chainlite.Variable(x), axis1, axis2)
    expected = numpy.swapaxes(x, axis1, axis2)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, expected)
    assert numpy.shares_memory(y.array, x)  # a view, no copy


@pytest.mark.parametrize('shape, axis1, axis2', CASES)
def test_backward(shape, axis1, axis2):
    x = _uniform(shape)
    gy = _uniform(numpy.swapaxes(x, axis1, axis2).shape, seed=1)
    gradient_check.check_backward(lambda x: swapaxes(x, axis1, axis2), (x,), (gy,))


@pytest.mark.parametrize('shape, axis1, axis2', CASES)
def test_double_backward(shape, axis1, axis2):
    x, ggx = _uniform(shape), _uniform(shape, seed=2)
    gy = _uniform(numpy.swapaxes(x, axis1, axis2).shape, seed=1)
    gradient_check.check_double_backward(lambda x: swapaxes(x, axis1, axis2), (x,), (gy,),
                                         (ggx,))
    gradient_check.check_double_backward(lambda x: swapaxes(x * x, axis1, axis2), (x,),
                                         (gy,), (ggx,))


def test_keyword_arguments():
    x = _uniform((1, 2, 3))
    assert swapaxes(x, axis1=0, axis2=1).shape == (2, 1, 3)


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = swapaxes(x, 0, 1)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    assert x.grad.shape == (2, 3)


def test_array_input():
    x = _uniform((2, 3))
    y = swapaxes(x, 0, 1)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, x.T)


@pytest.mark.parametrize('shape, axis1, axis2', [((2, 3), 2, 0), ((2, 3), 0, -3), ((), 0, 0)])
def test_axis_out_of_range_is_invalid(shape, axis1, axis2):
    msg = re.escape('Invalid operation is performed in: Swapaxes (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        swapaxes(numpy.zeros(shape), axis1, axis2)


@pytest.mark.parametrize('axis1, axis2', [(0.0, 1), (0, None), ((0,), 1)])
def test_non_integer_axis_is_a_type_error(axis1, axis2):
    with pytest.raises(TypeError, match='axis'):
        swapaxes(numpy.zeros((2, 3)), axis1, axis2)
