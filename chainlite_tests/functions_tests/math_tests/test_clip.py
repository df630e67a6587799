"""clip: forward against NumPy, gradients to second order, bounds, dtypes and bad inputs."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.clip import clip
from chainlite.utils import type_check

SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
BOUNDS = [(-0.5, 0.5), (None, 0.25), (-0.25, None), (-3.0, 3.0)]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # clip has kinks at its bounds: values on the grid k / 8 + 1 / 16 stay 1 / 16 away from
    # every bound used here (multiples of 1 / 4), far more than the finite-difference step.
    rs = numpy.random.RandomState(seed)
    return numpy.asarray(rs.randint(-8, 8, shape) / 8 + 1 / 16).astype(dtype)


def _gy(shape, seed=1):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


def _ref(x, lo, hi):
    return numpy.clip(x, -numpy.inf if lo is None else lo, numpy.inf if hi is None else hi)


@pytest.mark.parametrize('bounds', BOUNDS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype, bounds):
    x = _uniform(shape, dtype)
    y = clip(chainlite.Variable(x), *bounds)
    assert y.shape == shape
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, _ref(x, *bounds).astype(dtype))


@pytest.mark.parametrize('bounds', BOUNDS)
@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape, bounds):
    gradient_check.check_backward(lambda x: clip(x, *bounds), (_uniform(shape),), (_gy(shape),))


@pytest.mark.parametrize('bounds', BOUNDS)
@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape, bounds):
    gradient_check.check_double_backward(
        lambda x: clip(x, *bounds), (_uniform(shape),), (_gy(shape),), (_gy(shape, seed=2),))
    # Inside a nonlinear expression, so that second-order terms flow through the mask.
    gradient_check.check_double_backward(
        lambda x: clip(x * x, *bounds), (_uniform(shape),), (_gy(shape),),
        (_gy(shape, seed=2),))


def test_gradient_is_one_inside_and_on_the_edges_zero_outside():
    x = chainlite.Variable(numpy.array([-2.0, -1.0, 0.0, 1.0, 2.0]))
    y = clip(x, -1.0, 1.0)
    y.grad = numpy.full(5, 3.0)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [0.0, 3.0, 3.0, 3.0, 0.0])


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    # A float64 NumPy scalar bound must not promote the result.
    y = clip(x, numpy.float64(-0.5), 0.5)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    numpy.testing.assert_array_equal(x.grad, (numpy.abs(x.array) <= 0.5).astype(numpy.float32))


def test_array_input():
    x = _uniform((2, 3))
    y = clip(x, -0.5, 0.5)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, numpy.clip(x, -0.5, 0.5))


def test_bounds_beyond_the_dtype_range_clip_nothing():
    x = numpy.array([-3.0, 0.5, 60000.0], numpy.float16)
    y = clip(x, -1e6, 1e6)
    assert y.dtype == numpy.float16
    numpy.testing.assert_array_equal(y.array, x)


def test_integer_bounds_accepted():
    y = clip(numpy.array([-2.5, 0.5, 2.5]), -1, 2)
    numpy.testing.assert_array_equal(y.array, [-1.0, 0.5, 2.0])


@pytest.mark.parametrize('bounds', [(None, None), (1.0, 1.0), (2.0, -2.0)])
def test_bad_bounds_are_value_errors(bounds):
    with pytest.raises(ValueError, match='clip'):
        clip(numpy.zeros(3), *bounds)


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.int64, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: Clip (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        clip(numpy.zeros((2, 3), dtype), -1.0, 1.0)
