"""concat: joins along an existing axis; each input's gradient is its slice of gy."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.concat import concat
from chainlite.utils import type_check

# (input shapes, axis)
CASES = [([(2, 3), (2, 1)], 1),
         ([(3,), (2,)], 0),
         ([(2, 3, 4), (2, 3, 1), (2, 3, 2)], -1),
         ([(1, 2), (3, 2)], 0),
         ([(2, 3, 2), (2, 1, 2)], -2),
         ([(2, 3)], 1),                 # a single input
         ([(2, 0), (2, 3)], 1)]         # an empty piece
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Concatenation is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _inputs(shapes, dtype=numpy.float64, seed=0):
    return tuple(_uniform(s, dtype, seed + i) for i, s in enumerate(shapes))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes, axis', CASES)
def test_forward(shapes, axis, dtype):
    xs = _inputs(shapes, dtype)
    y = concat([chainlite.Variable(x) for x in xs], axis)
    expected = numpy.concatenate(xs, axis)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, expected)


@pytest.mark.parametrize('shapes, axis', CASES)
def test_backward(shapes, axis):
    xs = _inputs(shapes)
    gy = _uniform(numpy.concatenate(xs, axis).shape, seed=10)
    gradient_check.check_backward(lambda *xs: concat(xs, axis), xs, gy)


@pytest.mark.parametrize('shapes, axis', CASES)
def test_double_backward(shapes, axis):
    xs = _inputs(shapes)
    gy = _uniform(numpy.concatenate(xs, axis).shape, seed=10)
    ggxs = _inputs(shapes, seed=20)
    gradient_check.check_double_backward(lambda *xs: concat(xs, axis), xs, gy, ggxs)
    # Second-order terms through a nonlinear input must flow too.
    gradient_check.check_double_backward(lambda *xs: concat([x * x for x in xs], axis), xs, gy,
                                         ggxs)


def test_gradient_is_the_slice_of_gy():
    a, b = chainlite.Variable(numpy.zeros((2, 1))), chainlite.Variable(numpy.zeros((2, 2)))
    y = concat((a, b))
    y.grad = numpy.arange(6.0).reshape(2, 3)
    y.backward()
    numpy.testing.assert_array_equal(a.grad, [[0.0], [3.0]])
    numpy.testing.assert_array_equal(b.grad, [[1.0, 2.0], [4.0, 5.0]])


def test_default_axis_is_1():
    xs = _inputs([(2, 3), (2, 2)])
    assert concat(xs).shape == (2, 5)


def test_float32_in_float32_out():
    xs = [chainlite.Variable(x) for x in _inputs([(2, 3), (2, 1)], numpy.float32)]
    y = concat(xs)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert all(x.grad.dtype == numpy.float32 for x in xs)


def test_arrays_variables_lists_and_tuples():
    a, b = _inputs([(2, 3), (2, 1)])
    expected = numpy.concatenate((a, b), 1)
    for xs in ([a, b], (a, b), [chainlite.Variable(a), b], (a, chainlite.Variable(b))):
        y = concat(xs)
        assert isinstance(y, chainlite.Variable)
        numpy.testing.assert_array_equal(y.array, expected)


def test_only_variable_inputs_get_gradients():
    a, b = _inputs([(2, 3), (2, 1)])
    v = chainlite.Variable(b)
    y = concat([a, v])
    y.grad = numpy.ones(y.shape)
    y.backward()
    numpy.testing.assert_array_equal(v.grad, numpy.ones((2, 1)))


_MSG = re.escape('Invalid operation is performed in: Concat (Forward)')


@pytest.mark.parametrize('xs, axis', [
    ([numpy.zeros((2, 3)), numpy.zeros((3, 3))], 1),               # other axis differs
    ([numpy.zeros((2, 3)), numpy.zeros((2, 3), numpy.float32)], 1),  # dtypes differ
    ([numpy.zeros((2, 3)), numpy.zeros((2, 3, 1))], 1),            # ndims differ
    ([], 1),                                                        # nothing to join
    ([numpy.zeros((2, 3))], 2),                                     # axis out of range
    ([numpy.zeros((2, 3))], -3),
    ([numpy.zeros(())], 0),                                         # 0-d has no axis
], ids=['shape', 'dtype', 'ndim', 'empty', 'axis 2', 'axis -3', '0-d'])
def test_invalid_inputs(xs, axis):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        concat(xs, axis)


def test_non_integer_axis_is_a_type_error():
    with pytest.raises(TypeError, match='axis'):
        concat([numpy.zeros((2, 3))], 1.0)
