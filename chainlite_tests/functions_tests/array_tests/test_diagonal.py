"""diagonal: offsets (past the edge too), axis pairs, batch axes, gradients, dtypes, errors."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.diagonal import diagonal
from chainlite.utils import type_check

# (input shape, offset, axis1, axis2)
CASES = [((3, 3), 0, 0, 1), ((3, 3), 1, 0, 1), ((3, 3), -2, 0, 1), ((3, 3), 0, 1, 0),
         ((2, 4), 1, 0, 1), ((4, 2), -1, 0, 1), ((2, 3), 5, 0, 1), ((2, 3), -3, 0, 1),
         ((2, 3, 4), 0, 1, 2), ((2, 3, 4), 1, -1, 0), ((2, 3, 4), -1, 2, -3),
         ((2, 3, 4, 3), 0, 1, 3), ((2, 3, 4, 3), 2, 3, 1)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Taking a diagonal is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, offset, axis1, axis2', CASES)
def test_forward(shape, offset, axis1, axis2, dtype):
    x = _uniform(shape, dtype)
    y = diagonal(chainlite.Variable(x), offset, axis1, axis2)
    expected = numpy.diagonal(x, offset, axis1, axis2)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, expected)


@pytest.mark.parametrize('shape, offset, axis1, axis2', CASES)
def test_backward(shape, offset, axis1, axis2):
    x = _uniform(shape)
    gy = _uniform(numpy.diagonal(x, offset, axis1, axis2).shape, seed=1)
    gradient_check.check_backward(lambda x: diagonal(x, offset, axis1, axis2), (x,), (gy,))


@pytest.mark.parametrize('shape, offset, axis1, axis2', CASES)
def test_double_backward(shape, offset, axis1, axis2):
    x, ggx = _uniform(shape), _uniform(shape, seed=2)
    gy = _uniform(numpy.diagonal(x, offset, axis1, axis2).shape, seed=1)
    gradient_check.check_double_backward(lambda x: diagonal(x, offset, axis1, axis2), (x,),
                                         (gy,), (ggx,))
    gradient_check.check_double_backward(lambda x: diagonal(x * x, offset, axis1, axis2),
                                         (x,), (gy,), (ggx,))


def test_gradient_is_zero_off_the_diagonal():
    x = chainlite.Variable(numpy.zeros((3, 4)))
    y = diagonal(x, offset=1)
    y.grad = numpy.array([1.0, 2.0, 3.0])
    y.backward()
    expected = numpy.zeros((3, 4))
    expected[[0, 1, 2], [1, 2, 3]] = [1.0, 2.0, 3.0]
    numpy.testing.assert_array_equal(x.grad, expected)


def test_defaults_and_keywords():
    x = _uniform((3, 3, 2))
    numpy.testing.assert_array_equal(diagonal(x).array, numpy.diagonal(x))
    numpy.testing.assert_array_equal(diagonal(x, axis1=2, axis2=0, offset=-1).array,
                                     numpy.diagonal(x, -1, 2, 0))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((3, 3), numpy.float32))
    y = diagonal(x)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones(3, numpy.float32)
    y.backward()
    assert x.grad.dtype == numpy.float32
    numpy.testing.assert_array_equal(x.grad, numpy.eye(3))


def test_array_input():
    x = _uniform((3, 3))
    y = diagonal(x, 1)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, numpy.diag(x, 1))


@pytest.mark.parametrize('shape, axis1, axis2', [((3, 3), 2, 0), ((3, 3), 0, -3), ((3,), 0, 1),
                                                 ((), 0, 1)])
def test_axis_out_of_range_is_invalid(shape, axis1, axis2):
    msg = re.escape('Invalid operation is performed in: Diagonal (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        diagonal(numpy.zeros(shape), 0, axis1, axis2)


@pytest.mark.parametrize('axis1, axis2', [(1, 1), (0, -2)])
def test_same_axis_twice_is_a_value_error(axis1, axis2):
    with pytest.raises(ValueError, match='Diagonal'):
        diagonal(numpy.zeros((2, 2)), 0, axis1, axis2)


@pytest.mark.parametrize('offset, axis1, axis2', [(0.5, 0, 1), (0, None, 1), (0, 0, (1,))])
def test_non_integer_arguments_are_type_errors(offset, axis1, axis2):
    with pytest.raises(TypeError, match='diagonal'):
        diagonal(numpy.zeros((2, 2)), offset, axis1, axis2)
