"""moveaxis: ints and tuples of axes, negative ones, a view, gradients, dtypes and errors."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.moveaxis import moveaxis
from chainlite.utils import type_check

# (input shape, source, destination)
CASES = [((), (), ()), ((3,), 0, 0), ((3,), -1, 0), ((2, 3), 0, 1), ((2, 3), 0, -1),
         ((2, 3, 4), 0, 2), ((2, 3, 4), 2, 0), ((2, 3, 4), -1, 1), ((2, 3, 4), (0, 1), (1, 0)),
         ((2, 3, 4, 5), (0, 3), (2, 0)), ((2, 3, 4, 5), [1, -1], [-1, 0]),
         ((2, 3, 4), (0, 1, 2), (2, 0, 1))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Moving axes is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, source, destination', CASES)
def test_forward(shape, source, destination, dtype):
    x = _uniform(shape, dtype)
    y = moveaxis(chainlite.Variable(x), source, destination)
    expected = numpy.moveaxis(x, source, destination)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, expected)
    assert numpy.shares_memory(y.array, x)  # a view, no copy


@pytest.mark.parametrize('shape, source, destination', CASES)
def test_backward(shape, source, destination):
    x = _uniform(shape)
    gy = _uniform(numpy.moveaxis(x, source, destination).shape, seed=1)
    gradient_check.check_backward(lambda x: moveaxis(x, source, destination), (x,), (gy,))


@pytest.mark.parametrize('shape, source, destination', CASES)
def test_double_backward(shape, source, destination):
    x, ggx = _uniform(shape), _uniform(shape, seed=2)
    gy = _uniform(numpy.moveaxis(x, source, destination).shape, seed=1)
    gradient_check.check_double_backward(lambda x: moveaxis(x, source, destination), (x,),
                                         (gy,), (ggx,))
    gradient_check.check_double_backward(lambda x: moveaxis(x * x, source, destination), (x,),
                                         (gy,), (ggx,))


def test_gradient_moves_back():
    x = chainlite.Variable(numpy.zeros((2, 3, 4)))
    y = moveaxis(x, 0, -1)
    gy = numpy.arange(24.0).reshape(3, 4, 2)
    y.grad = gy
    y.backward()
    numpy.testing.assert_array_equal(x.grad, numpy.moveaxis(gy, -1, 0))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = moveaxis(x, 0, 1)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    assert x.grad.shape == (2, 3)


def test_array_input():
    x = _uniform((2, 3))
    y = moveaxis(x, 1, 0)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, x.T)


@pytest.mark.parametrize('source, destination', [(3, 0), (0, -4), ((0, 1), (1, 3))])
def test_axis_out_of_range_is_invalid(source, destination):
    msg = re.escape('Invalid operation is performed in: Moveaxis (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        moveaxis(numpy.zeros((2, 3, 4)), source, destination)


@pytest.mark.parametrize('source, destination, match', [
    ((0, -3), (1, 2), 'duplicate value in source'),
    ((0, 1), (2, -1), 'duplicate value in destination'),
    ((0, 1), 2, 'same length')])
def test_bad_axes_are_value_errors(source, destination, match):
    with pytest.raises(ValueError, match=match):
        moveaxis(numpy.zeros((2, 3, 4)), source, destination)


@pytest.mark.parametrize('source, destination', [(0.0, 1), (0, None), ((0, True), (1, 2))])
def test_non_integer_axis_is_a_type_error(source, destination):
    with pytest.raises(TypeError, match='moveaxis'):
        moveaxis(numpy.zeros((2, 3, 4)), source, destination)
