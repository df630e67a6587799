"""rollaxis: every axis and start (negative ones, start == ndim), gradients, dtypes, errors."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.rollaxis import rollaxis
from chainlite.utils import type_check

# (input shape, axis, start); start runs over -ndim .. ndim. A 0-d input has no axis to
# roll: only its error is tested.
CASES = [((3,), 0, 0), ((3,), 0, 1), ((3,), -1, -1), ((2, 3), 1, 0),
         ((2, 3), 0, 2), ((2, 3, 4), 2, 0), ((2, 3, 4), 0, 3), ((2, 3, 4), 0, 2),
         ((2, 3, 4), -1, 1), ((2, 3, 4), 1, -3), ((2, 3, 4), 1, -1), ((2, 3, 4, 5), 3, 1)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Rolling axes is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, axis, start', CASES)
def test_forward(shape, axis, start, dtype):
    x = _uniform(shape, dtype)
    y = rollaxis(chainlite.Variable(x), axis, start)
    expected = numpy.rollaxis(x, axis, start)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, expected)
    assert numpy.shares_memory(y.array, x)  # a view, no copy


@pytest.mark.parametrize('shape, axis, start', CASES)
def test_backward(shape, axis, start):
    x = _uniform(shape)
    gy = _uniform(numpy.rollaxis(x, axis, start).shape, seed=1)
    gradient_check.check_backward(lambda x: rollaxis(x, axis, start), (x,), (gy,))


@pytest.mark.parametrize('shape, axis, start', CASES)
def test_double_backward(shape, axis, start):
    x, ggx = _uniform(shape), _uniform(shape, seed=2)
    gy = _uniform(numpy.rollaxis(x, axis, start).shape, seed=1)
    gradient_check.check_double_backward(lambda x: rollaxis(x, axis, start), (x,), (gy,),
                                         (ggx,))
    gradient_check.check_double_backward(lambda x: rollaxis(x * x, axis, start), (x,), (gy,),
                                         (ggx,))


def test_start_defaults_to_zero():
    x = _uniform((2, 3, 4))
    numpy.testing.assert_array_equal(rollaxis(x, 2).array, numpy.rollaxis(x, 2))
    assert rollaxis(x, axis=1, start=3).shape == (2, 4, 3)


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = rollaxis(x, 1)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    assert x.grad.shape == (2, 3)


def test_array_input():
    x = _uniform((2, 3))
    y = rollaxis(x, 1)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, x.T)


@pytest.mark.parametrize('shape, axis, start', [((2, 3, 4), 3, 0), ((2, 3, 4), -4, 0),
                                                ((2, 3, 4), 0, 4), ((2, 3, 4), 0, -4),
                                                ((), 0, 0)])
def test_axis_or_start_out_of_range_is_invalid(shape, axis, start):
    msg = re.escape('Invalid operation is performed in: Rollaxis (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        rollaxis(numpy.zeros(shape), axis, start)


@pytest.mark.parametrize('axis, start', [(0.0, 0), (0, None), ((0,), 1), (True, 0)])
def test_non_integer_axis_is_a_type_error(axis, start):
    with pytest.raises(TypeError, match='rollaxis'):
        rollaxis(numpy.zeros((2, 3, 4)), axis, start)
