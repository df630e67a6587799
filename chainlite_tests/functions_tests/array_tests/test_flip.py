"""flip: every axis (negative too), a view, gradients, dtypes and errors."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.flip import flip
from chainlite.utils import type_check

# (input shape, axis); a 0-d input has no axis to flip (see the error test).
CASES = [((1,), 0), ((3,), 0), ((3,), -1), ((2, 3), 0), ((2, 3), 1), ((2, 3), -2),
         ((2, 3, 4), 1), ((2, 3, 4), -1)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Flipping is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, axis', CASES)
def test_forward(shape, axis, dtype):
    x = _uniform(shape, dtype)
    y = flip(chainlite.Variable(x), axis)
    assert y.shape == shape
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, numpy.flip(x, axis))
    assert numpy.shares_memory(y.array, x)  # a view, no copy


@pytest.mark.parametrize('shape, axis', CASES)
def test_backward(shape, axis):
    gradient_check.check_backward(lambda x: flip(x, axis), (_uniform(shape),),
                                  (_uniform(shape, seed=1),))


@pytest.mark.parametrize('shape, axis', CASES)
def test_double_backward(shape, axis):
    x, gy, ggx = _uniform(shape), _uniform(shape, seed=1), _uniform(shape, seed=2)
    gradient_check.check_double_backward(lambda x: flip(x, axis), (x,), (gy,), (ggx,))
    gradient_check.check_double_backward(lambda x: flip(x * x, axis), (x,), (gy,), (ggx,))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = flip(x, 1)
    assert y.dtype == numpy.float32
    gy = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    y.grad = gy
    y.backward()
    assert x.grad.dtype == numpy.float32
    numpy.testing.assert_array_equal(x.grad, gy[:, ::-1])


def test_array_input_and_keyword():
    x = _uniform((2, 3))
    y = flip(x, axis=0)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, x[::-1])


@pytest.mark.parametrize('shape, axis', [((2, 3), 2), ((2, 3), -3), ((), 0)])
def test_axis_out_of_range_is_invalid(shape, axis):
    msg = re.escape('Invalid operation is performed in: Flip (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        flip(numpy.zeros(shape), axis)


@pytest.mark.parametrize('axis', [None, 1.0, (0,), True])
def test_non_integer_axis_is_a_type_error(axis):
    with pytest.raises(TypeError, match='flip'):
        flip(numpy.zeros((2, 3)), axis)


@pytest.mark.parametrize('shape, axis', CASES)
def test_array_helper_is_numpy_flip_and_a_view(shape, axis):
    # Chainer's tests read the array-level helper as ``functions.array.flip._flip``.
    from chainlite.functions.array.flip import _flip
    x = _uniform(shape)
    y = _flip(x, axis)
    numpy.testing.assert_array_equal(y, numpy.flip(x, axis))
    assert numpy.shares_memory(x, y)
