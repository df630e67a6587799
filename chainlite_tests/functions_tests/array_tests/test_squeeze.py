"""squeeze: all length-1 axes or chosen ones, a view, gradients, dtypes and errors."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.squeeze import squeeze
from chainlite.utils import type_check

# (input shape, axis)
CASES = [((), None), ((), ()), ((1,), None), ((1,), 0), ((3,), None), ((1, 3), 0),
         ((2, 1), -1), ((2, 1, 1, 3), None), ((2, 1, 1, 3), 1), ((2, 1, 1, 3), (1, 2)),
         ((2, 1, 1, 3), (-2, 1)), ((1, 1), [0, 1]), ((2, 1, 3), ())]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Removing axes is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _np_axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, axis', CASES)
def test_forward(shape, axis, dtype):
    x = _uniform(shape, dtype)
    y = squeeze(chainlite.Variable(x), axis)
    expected = numpy.squeeze(x, _np_axis(axis))
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, expected)
    assert numpy.shares_memory(y.array, x)  # a view, no copy


@pytest.mark.parametrize('shape, axis', CASES)
def test_backward(shape, axis):
    x = _uniform(shape)
    gy = _uniform(numpy.squeeze(x, _np_axis(axis)).shape, seed=1)
    gradient_check.check_backward(lambda x: squeeze(x, axis), (x,), (gy,))


@pytest.mark.parametrize('shape, axis', CASES)
def test_double_backward(shape, axis):
    x, ggx = _uniform(shape), _uniform(shape, seed=2)
    gy = _uniform(numpy.squeeze(x, _np_axis(axis)).shape, seed=1)
    gradient_check.check_double_backward(lambda x: squeeze(x, axis), (x,), (gy,), (ggx,))
    gradient_check.check_double_backward(lambda x: squeeze(x * x, axis), (x,), (gy,), (ggx,))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((1, 3), numpy.float32))
    y = squeeze(x)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    assert x.grad.shape == (1, 3)


def test_array_input():
    x = _uniform((2, 1))
    y = squeeze(x, axis=1)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, x[:, 0])


@pytest.mark.parametrize('shape, axis', [((2, 3), 0), ((2, 1, 3), (1, 2)), ((2, 1), -2)])
def test_axis_of_length_other_than_one_is_invalid(shape, axis):
    msg = re.escape('Invalid operation is performed in: Squeeze (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        squeeze(numpy.zeros(shape), axis)


@pytest.mark.parametrize('axis', [2, -3, (0, 5)])
def test_axis_out_of_range_is_invalid(axis):
    msg = re.escape('Invalid operation is performed in: Squeeze (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        squeeze(numpy.zeros((1, 1)), axis)


def test_duplicate_axis_is_an_error():
    with pytest.raises(ValueError, match='duplicate'):
        squeeze(numpy.zeros((1, 1)), (0, -2))


@pytest.mark.parametrize('axis', [1.0, (0, 0.5), True])
def test_non_integer_axis_is_a_type_error(axis):
    with pytest.raises(TypeError, match='axis'):
        squeeze(numpy.zeros((1, 1)), axis)
