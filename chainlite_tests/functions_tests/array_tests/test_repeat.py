"""repeat: scalar and per-element counts (zeros too), axis None or given, gradients, errors."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.repeat import repeat
from chainlite.utils import type_check

# (input shape, repeats, axis)
CASES = [((), 2, None), ((), (3,), None), ((), 0, None), ((3,), 2, None), ((3,), 1, 0),
         ((3,), (1, 0, 2), 0), ((3,), (2, 3, 1), -1), ((2, 3), 2, None),
         ((2, 3), (1, 2, 0, 1, 1, 3), None), ((2, 3), 3, 1), ((2, 3), (1, 2), 0),
         ((2, 3), (0, 2, 0), 1), ((2, 3), (0, 0, 0), -1), ((2, 3, 4), 2, -2),
         ((2, 3, 4), (2, 1, 1, 3), 2), ((2, 3), [2, 1], 0), ((2, 0), 2, 1)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Repetition is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, repeats, axis', CASES)
def test_forward(shape, repeats, axis, dtype):
    x = _uniform(shape, dtype)
    y = repeat(chainlite.Variable(x), repeats, axis)
    expected = numpy.repeat(x, repeats, axis)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, expected)


@pytest.mark.parametrize('shape, repeats, axis', CASES)
def test_backward(shape, repeats, axis):
    x = _uniform(shape)
    gy = _uniform(numpy.repeat(x, repeats, axis).shape, seed=1)
    gradient_check.check_backward(lambda x: repeat(x, repeats, axis), (x,), (gy,))


@pytest.mark.parametrize('shape, repeats, axis', CASES)
def test_double_backward(shape, repeats, axis):
    x, ggx = _uniform(shape), _uniform(shape, seed=2)
    gy = _uniform(numpy.repeat(x, repeats, axis).shape, seed=1)
    gradient_check.check_double_backward(lambda x: repeat(x, repeats, axis), (x,), (gy,),
                                         (ggx,))
    gradient_check.check_double_backward(lambda x: repeat(x * x, repeats, axis), (x,), (gy,),
                                         (ggx,))


def test_gradient_adds_up_the_copies():
    x = chainlite.Variable(numpy.zeros((2, 2)))
    y = repeat(x, (3, 0), axis=1)
    y.grad = numpy.arange(6.0).reshape(2, 3)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[0 + 1 + 2, 0], [3 + 4 + 5, 0]])


@pytest.mark.parametrize('dtype', DTYPES)
def test_gradient_dtype_is_the_input_dtype(dtype):
    for repeats, axis in ((2, None), ((1, 0, 2), 0)):
        x = chainlite.Variable(_uniform((3,), dtype))
        y = repeat(x, repeats, axis)
        assert y.dtype == dtype
        y.grad = numpy.ones_like(y.array)
        y.backward()
        assert x.grad.dtype == dtype
        numpy.testing.assert_array_equal(x.grad, numpy.broadcast_to(repeats, (3,)))


def test_keyword_arguments_and_array_input():
    x = _uniform((2, 2))
    y = repeat(x, repeats=3, axis=1)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, numpy.repeat(x, 3, axis=1))


@pytest.mark.parametrize('shape, repeats, axis', [((2, 3), (1, 2), 1), ((2, 3), (1, 2), None),
                                                  ((3,), (1, 2, 3, 4), 0)])
def test_wrong_number_of_repeats_is_invalid(shape, repeats, axis):
    msg = re.escape('Invalid operation is performed in: Repeat (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        repeat(numpy.zeros(shape), repeats, axis)


@pytest.mark.parametrize('shape, axis', [((2, 3), 2), ((2, 3), -3), ((), 0)])
def test_axis_out_of_range_is_invalid(shape, axis):
    msg = re.escape('Invalid operation is performed in: Repeat (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        repeat(numpy.zeros(shape), 2, axis)


@pytest.mark.parametrize('repeats, axis', [(1.5, None), ((2, 1.0), 0), ((), None), (2, 0.0),
                                           (2, (0,)), (None, None)])
def test_non_integer_arguments_are_type_errors(repeats, axis):
    with pytest.raises(TypeError, match='repeat'):
        repeat(numpy.zeros((2, 2)), repeats, axis)


@pytest.mark.parametrize('repeats', [-1, (2, -1)])
def test_negative_repeats_is_a_value_error(repeats):
    with pytest.raises(ValueError, match='repeat'):
        repeat(numpy.zeros(2), repeats, 0)


def test_bool_repeats_count_as_zero_and_one():
    x = numpy.array([[1.0, 2.0], [3.0, 4.0]])
    numpy.testing.assert_array_equal(repeat(x, True, axis=0).array, x)
    numpy.testing.assert_array_equal(repeat(x, (True, False), axis=1).array, x[:, :1])
    numpy.testing.assert_array_equal(repeat(x, (False,)).array, numpy.zeros(0))
