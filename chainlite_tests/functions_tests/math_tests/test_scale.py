"""scale: Caffe-style broadcasting from an axis, gradients to second order, dtypes, bad inputs."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.scale import scale
from chainlite.utils import type_check

# (x shape, y shape, axis)
CASES = [((3,), (3,), 0), ((3,), (), 0), ((2, 3), (3,), 1), ((2, 3), (2, 3), 0),
         ((2, 3), (2,), 0), ((2, 3, 4), (3,), 1), ((2, 3, 4), (3, 4), 1), ((2, 3, 4), (3,), -2),
         ((2, 3, 4), (4,), -1), ((2, 3, 4), (), 1)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-3, 'rtol': 1e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _uniform(shape, dtype=numpy.float64, seed=0):
    # A product, smooth everywhere: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _ref(x, y, axis):
    axis %= x.ndim
    return x * y.reshape((1,) * axis + y.shape + (1,) * (x.ndim - axis - y.ndim))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('xs, ys, axis', CASES)
def test_forward(xs, ys, axis, dtype):
    x, y = _uniform(xs, dtype), _uniform(ys, dtype, seed=1)
    z = scale(chainlite.Variable(x), chainlite.Variable(y), axis)
    assert z.shape == xs
    assert z.dtype == dtype
    expected = _ref(x.astype(numpy.float64), y.astype(numpy.float64), axis)
    numpy.testing.assert_allclose(z.array, expected, **TOL[dtype])


def test_default_axis_is_1():
    x, y = _uniform((2, 3, 4)), _uniform((3,), seed=1)
    numpy.testing.assert_array_equal(scale(x, y).array, x * y[:, None])


@pytest.mark.parametrize('xs, ys, axis', CASES)
def test_backward(xs, ys, axis):
    gradient_check.check_backward(lambda x, y: scale(x, y, axis),
                                  (_uniform(xs), _uniform(ys, seed=1)), (_uniform(xs, seed=2),))


@pytest.mark.parametrize('xs, ys, axis', CASES)
def test_double_backward(xs, ys, axis):
    gradient_check.check_double_backward(
        lambda x, y: scale(x, y, axis), (_uniform(xs), _uniform(ys, seed=1)),
        (_uniform(xs, seed=2),), (_uniform(xs, seed=3), _uniform(ys, seed=4)))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3, 4), numpy.float32))
    y = chainlite.Variable(_uniform((3,), numpy.float32, seed=1))
    z = scale(x, y)
    assert z.dtype == numpy.float32
    z.grad = numpy.ones_like(z.array)
    z.backward()
    assert x.grad.dtype == numpy.float32
    assert y.grad.dtype == numpy.float32
    numpy.testing.assert_allclose(x.grad, numpy.broadcast_to(y.array[:, None], (2, 3, 4)))
    numpy.testing.assert_allclose(y.grad, x.array.sum(axis=(0, 2)), rtol=1e-5)


def test_arrays_and_variables_mix():
    x, y = _uniform((2, 3)), _uniform((3,), seed=1)
    for a, b in ((x, y), (chainlite.Variable(x), y), (x, chainlite.Variable(y))):
        z = scale(a, b)
        assert isinstance(z, chainlite.Variable)
        numpy.testing.assert_array_equal(z.array, x * y)


MSG = re.escape('Invalid operation is performed in: Scale (Forward)')


@pytest.mark.parametrize('xs, ys, axis', [((2, 3), (2,), 1), ((2, 3, 4), (4,), 1),
                                          ((2, 3), (3, 1), 1), ((2, 3), (2, 3, 1), 0)])
def test_mismatched_shapes_are_invalid(xs, ys, axis):
    with pytest.raises(type_check.InvalidType, match=MSG):
        scale(numpy.ones(xs), numpy.ones(ys), axis)


@pytest.mark.parametrize('axis', [2, -3])
def test_axis_out_of_range_is_invalid(axis):
    with pytest.raises(type_check.InvalidType, match=MSG):
        scale(numpy.ones((2, 3)), numpy.ones(3), axis)


def test_non_integer_axis_is_a_type_error():
    with pytest.raises(TypeError, match='axis'):
        scale(numpy.ones((2, 3)), numpy.ones(3), 1.0)


def test_mismatched_dtypes_are_invalid():
    with pytest.raises(type_check.InvalidType, match=MSG):
        scale(numpy.ones((2, 3)), numpy.ones(3, numpy.float32))


def test_integer_inputs_are_invalid():
    with pytest.raises(type_check.InvalidType, match=MSG):
        scale(numpy.ones((2, 3), numpy.int32), numpy.ones(3, numpy.int32))
