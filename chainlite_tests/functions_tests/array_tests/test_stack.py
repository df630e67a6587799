"""stack: joins arrays of one shape along a new axis; gradients are the slices of gy."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.stack import stack
from chainlite.utils import type_check

# (input shape, number of inputs, axis)
CASES = [((), 3, 0), ((), 2, -1), ((3,), 2, 0), ((3,), 2, 1), ((3,), 2, -1), ((3,), 2, -2),
         ((2, 3), 3, 1), ((2, 3), 2, 2), ((2, 3), 1, 0), ((2, 0), 2, 1)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Stacking is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _inputs(shape, n, dtype=numpy.float64, seed=0):
    return tuple(_uniform(shape, dtype, seed + i) for i in range(n))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, n, axis', CASES)
def test_forward(shape, n, axis, dtype):
    xs = _inputs(shape, n, dtype)
    y = stack([chainlite.Variable(x) for x in xs], axis)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, numpy.stack(xs, axis))


@pytest.mark.parametrize('shape, n, axis', CASES)
def test_backward(shape, n, axis):
    xs = _inputs(shape, n)
    gy = _uniform(numpy.stack(xs, axis).shape, seed=10)
    gradient_check.check_backward(lambda *xs: stack(xs, axis), xs, gy)


@pytest.mark.parametrize('shape, n, axis', CASES)
def test_double_backward(shape, n, axis):
    xs, ggxs = _inputs(shape, n), _inputs(shape, n, seed=20)
    gy = _uniform(numpy.stack(xs, axis).shape, seed=10)
    gradient_check.check_double_backward(lambda *xs: stack(xs, axis), xs, gy, ggxs)
    gradient_check.check_double_backward(lambda *xs: stack([x * x for x in xs], axis), xs, gy,
                                         ggxs)


def test_default_axis_is_0():
    assert stack(_inputs((2, 3), 4)).shape == (4, 2, 3)


def test_float32_in_float32_out():
    xs = [chainlite.Variable(x) for x in _inputs((2, 3), 2, numpy.float32)]
    y = stack(xs)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert all(x.grad.dtype == numpy.float32 for x in xs)


def test_arrays_variables_lists_and_tuples():
    a, b = _inputs((2, 3), 2)
    for xs in ([a, b], (a, b), [chainlite.Variable(a), b]):
        y = stack(xs, 1)
        assert isinstance(y, chainlite.Variable)
        numpy.testing.assert_array_equal(y.array, numpy.stack((a, b), 1))


_MSG = re.escape('Invalid operation is performed in: Stack (Forward)')


@pytest.mark.parametrize('xs, axis', [
    ([numpy.zeros((2, 3)), numpy.zeros((3, 2))], 0),
    ([numpy.zeros((2, 3)), numpy.zeros((2, 3), numpy.float32)], 0),
    ([], 0),
    ([numpy.zeros((2, 3))], 3),
    ([numpy.zeros((2, 3))], -4),
], ids=['shape', 'dtype', 'empty', 'axis 3', 'axis -4'])
def test_invalid_inputs(xs, axis):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        stack(xs, axis)


def test_axis_message_speaks_of_the_inputs_ndim():
    with pytest.raises(type_check.InvalidType, match=re.escape('axis = 3, x.ndim = 2')):
        stack([numpy.zeros((2, 3))], 3)


def test_non_integer_axis_is_a_type_error():
    with pytest.raises(TypeError, match='axis'):
        stack([numpy.zeros(3)], 0.5)
