"""max: forward against NumPy, gradients to second order, ties, dtypes and bad inputs."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.exp import exp
from chainlite.functions.math.max import max as F_max
from chainlite.utils import type_check

CASES = [((), None), ((3,), None), ((3,), 0), ((2, 3), 1), ((2, 3), -2),
         ((2, 3, 4), (0, 2)), ((2, 3, 4), (-1, 0)), ((2, 3, 4), None)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _distinct(shape, dtype=numpy.float64, seed=0):
    # No ties (max is not differentiable there): a shuffled grid with steps of 0.25, much
    # wider than the finite-difference step and exact in float16.
    n = int(numpy.prod(shape))
    v = numpy.random.RandomState(seed).permutation(n) * 0.25 - n / 8
    return v.reshape(shape).astype(dtype)


def _uniform(shape, seed):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


@pytest.mark.parametrize('keepdims', [False, True])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, axis', CASES)
def test_forward(shape, axis, dtype, keepdims):
    x = _distinct(shape, dtype)
    y = F_max(chainlite.Variable(x), axis=axis, keepdims=keepdims)
    expected = numpy.max(x, axis=axis, keepdims=keepdims)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, expected)


@pytest.mark.parametrize('keepdims', [False, True])
@pytest.mark.parametrize('shape, axis', CASES)
def test_backward(shape, axis, keepdims):
    x = _distinct(shape)
    gy = _uniform(numpy.max(x, axis=axis, keepdims=keepdims).shape, 1)
    gradient_check.check_backward(lambda x: F_max(x, axis, keepdims), x, gy)


@pytest.mark.parametrize('keepdims', [False, True])
@pytest.mark.parametrize('shape, axis', CASES)
def test_double_backward(shape, axis, keepdims):
    x = _distinct(shape)
    gy = _uniform(numpy.max(x, axis=axis, keepdims=keepdims).shape, 1)
    # Through exp (monotonic: no new ties), so the second derivative is not identically zero.
    gradient_check.check_double_backward(lambda x: F_max(exp(x), axis, keepdims), x, gy,
                                         _uniform(shape, 2))


def test_gradient_goes_to_the_maximum():
    x = chainlite.Variable(numpy.array([[1.0, 5.0, 2.0], [4.0, 0.0, 3.0]]))
    y = F_max(x, axis=1)
    y.grad = numpy.array([1.0, 2.0])
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[0, 1, 0], [2, 0, 0]])


def test_ties_each_receive_the_gradient():
    # As Chainer: every element equal to the maximum gets the whole output gradient.
    x = chainlite.Variable(numpy.array([3.0, 1.0, 3.0]))
    F_max(x).backward()
    numpy.testing.assert_array_equal(x.grad, [1, 0, 1])


def test_float32_in_float32_out():
    x = chainlite.Variable(_distinct((2, 3), numpy.float32))
    y = F_max(x, axis=0)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_array_input():
    x = _distinct((2, 3))
    y = F_max(x, axis=-1)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, x.max(axis=-1))


@pytest.mark.parametrize('axis', [2, -3, (0, 5)])
def test_axis_out_of_range_is_invalid(axis):
    msg = re.escape('Invalid operation is performed in: Max (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        F_max(numpy.zeros((2, 3)), axis=axis)


def test_bad_axes_are_errors():
    with pytest.raises(ValueError, match='duplicate'):
        F_max(numpy.zeros((2, 3)), axis=(1, -1))
    with pytest.raises(TypeError, match='axis'):
        F_max(numpy.zeros((2, 3)), axis=1.0)


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: Max (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        F_max(numpy.ones((2, 3), dtype))
