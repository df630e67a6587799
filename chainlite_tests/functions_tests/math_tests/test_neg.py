"""Neg (``-x``): forward against NumPy, gradients to second order and dtypes."""
import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math import neg

SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Negation is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _neg(x):
    return neg.Neg().apply((x,))[0]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    x = _uniform(shape, dtype)
    for y in (-chainlite.Variable(x), _neg(chainlite.Variable(x))):
        assert y.shape == shape
        assert y.dtype == dtype
        # Negation is exact in every float dtype.
        numpy.testing.assert_array_equal(y.array, -x)


def test_operator_creates_neg():
    y = -chainlite.Variable(numpy.array([1.0, -2.0]))
    assert isinstance(y.creator, neg.Neg)
    assert y.creator.label == '__neg__'  # as in Chainer


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    gradient_check.check_backward(_neg, (_uniform(shape),), (_uniform(shape, seed=1),))
    gradient_check.check_backward(lambda x: -x, (_uniform(shape),), (_uniform(shape, seed=1),))


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    x, gy, ggx = _uniform(shape), _uniform(shape, seed=1), _uniform(shape, seed=2)
    # Linear: gx = -gy does not depend on x at all; the second derivative is zero.
    gradient_check.check_double_backward(_neg, (x,), (gy,), (ggx,))
    # Inside a nonlinear expression, Neg must pass second-order terms through.
    gradient_check.check_double_backward(lambda x: -(x * x), (x,), (gy,), (ggx,))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = -x
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    numpy.testing.assert_array_equal(x.grad, -numpy.ones((2, 3), numpy.float32))


def test_array_input():
    x = _uniform((2, 3))
    y = _neg(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, -x)


def test_integer_input_is_negated_like_numpy():
    # As in Chainer, Neg checks no dtype: integer negation is well defined.
    y = _neg(numpy.array([1, -2, 3], numpy.int32))
    assert y.dtype == numpy.int32
    numpy.testing.assert_array_equal(y.array, [-1, 2, -3])
