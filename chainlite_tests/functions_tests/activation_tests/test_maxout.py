"""maxout: forward against NumPy over several axes, gradients to second order, bad args."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.activation.maxout import maxout
from chainlite.utils import type_check

# (x shape, pool_size, axis); maxout needs an axis, so () is not a valid x (tested below).
CASES = [((6,), 3, 0), ((2, 6), 3, 1), ((2, 6), 2, -1), ((2, 6), 1, 1), ((4, 3), 2, 0),
         ((2, 4, 3), 2, 1), ((2, 3, 4), 4, 2)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _distinct(shape, dtype=numpy.float64, seed=0):
    # A permutation of values 0.1 apart: no ties within a group (where max is not
    # differentiable), and no finite-difference step (eps 1e-3) reorders two of them.
    rng = numpy.random.RandomState(seed)
    n = int(numpy.prod(shape))
    return (rng.permutation(n).reshape(shape) * 0.1 - 0.05 * n).astype(dtype)


def _uniform(shape, seed):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


def _expected(x, pool_size, axis):
    axis %= x.ndim
    shape = x.shape[:axis] + (x.shape[axis] // pool_size, pool_size) + x.shape[axis + 1:]
    return x.reshape(shape).max(axis=axis + 1)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, pool_size, axis', CASES)
def test_forward(shape, pool_size, axis, dtype):
    x = _distinct(shape, dtype)
    y = maxout(chainlite.Variable(x), pool_size, axis)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, _expected(x, pool_size, axis))


def test_default_axis_is_1():
    x = _distinct((2, 6, 2))
    assert maxout(x, 3).shape == (2, 2, 2)
    numpy.testing.assert_array_equal(maxout(x, 3).array, _expected(x, 3, 1))


@pytest.mark.parametrize('shape, pool_size, axis', CASES)
def test_backward(shape, pool_size, axis):
    x = _distinct(shape)
    gy = _uniform(_expected(x, pool_size, axis).shape, 1)
    gradient_check.check_backward(lambda x: maxout(x, pool_size, axis), (x,), (gy,))


@pytest.mark.parametrize('shape, pool_size, axis', CASES)
def test_double_backward(shape, pool_size, axis):
    x = _distinct(shape)
    gy = _uniform(_expected(x, pool_size, axis).shape, 1)
    gradient_check.check_double_backward(lambda x: maxout(x, pool_size, axis), (x,), (gy,),
                                         (_uniform(shape, 2),))


def test_gradient_goes_to_the_maximum():
    x = chainlite.Variable(numpy.array([[1.0, 4.0, 3.0, 2.0, 0.0, 5.0]]))
    y = maxout(x, 3)
    y.grad = numpy.array([[10.0, 20.0]])
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[0.0, 10.0, 0.0, 0.0, 0.0, 20.0]])


def test_float32_in_float32_out():
    x = chainlite.Variable(_distinct((2, 6), numpy.float32))
    y = maxout(x, 2)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_array_input():
    x = _distinct((2, 6))
    y = maxout(x, 2)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, _expected(x, 2, 1))


@pytest.mark.parametrize('shape, pool_size, axis', [((2, 5), 2, 1), ((), 1, 0), ((6,), 2, 1),
                                                    ((2, 6), 2, -3)])
def test_bad_shapes_and_axes_are_invalid(shape, pool_size, axis):
    msg = re.escape('Invalid operation is performed in: maxout (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        maxout(numpy.zeros(shape), pool_size, axis)


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: maxout (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        maxout(numpy.zeros((2, 6), dtype), 2)


def test_bad_pool_size():
    with pytest.raises(ValueError, match='maxout: pool_size must be positive'):
        maxout(numpy.zeros((2, 6)), 0)
    with pytest.raises(TypeError, match='maxout: pool_size must be an int'):
        maxout(numpy.zeros((2, 6)), 2.0)
