"""prelu: forward against NumPy for several W shapes, gradients (x and W) to second order."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.activation.prelu import prelu
from chainlite.utils import type_check

# (x shape, W shape): W lines up with x's axes 1..M; x needs a batch axis, so () is not a
# valid x (tested below).
CASES = [((3,), ()), ((2, 3), ()), ((2, 3), (3,)), ((2, 3, 4), (3,)), ((2, 3, 4), (3, 4)),
         ((2, 3, 4, 2), (3,))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-3, 'rtol': 1e-3},
       numpy.float32: {'atol': 1e-7, 'rtol': 1e-6},
       numpy.float64: {'atol': 0, 'rtol': 1e-15}}


def _away_from_zero(shape, dtype=numpy.float64, seed=0):
    # The kink is at x = 0: |x| >= 0.1 keeps finite differences (eps 1e-3) on one side.
    rng = numpy.random.RandomState(seed)
    x = rng.uniform(0.1, 1, shape) * rng.choice([-1, 1], shape)
    return numpy.asarray(x).astype(dtype)


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Smooth in W and in the output gradients: any values will do.
    return numpy.asarray(numpy.random.RandomState(seed).uniform(-1, 1, shape)).astype(dtype)


def _expected(x, W):
    x = x.astype(numpy.float64)
    w = W.astype(numpy.float64).reshape((1,) + W.shape + (1,) * (x.ndim - W.ndim - 1))
    return numpy.where(x > 0, x, w * x)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('x_shape, W_shape', CASES)
def test_forward(x_shape, W_shape, dtype):
    x, W = _away_from_zero(x_shape, dtype), _uniform(W_shape, dtype, 1)
    y = prelu(chainlite.Variable(x), chainlite.Variable(W))
    assert y.shape == x_shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _expected(x, W), **TOL[dtype])


@pytest.mark.parametrize('x_shape, W_shape', CASES)
def test_backward(x_shape, W_shape):
    gradient_check.check_backward(prelu, (_away_from_zero(x_shape), _uniform(W_shape, seed=1)),
                                  (_uniform(x_shape, seed=2),))


@pytest.mark.parametrize('x_shape, W_shape', CASES)
def test_double_backward(x_shape, W_shape):
    gradient_check.check_double_backward(
        prelu, (_away_from_zero(x_shape), _uniform(W_shape, seed=1)),
        (_uniform(x_shape, seed=2),), (_uniform(x_shape, seed=3), _uniform(W_shape, seed=4)))


def test_gradients_by_hand():
    x = chainlite.Variable(numpy.array([[-2.0, 3.0], [-1.0, -4.0]]))
    W = chainlite.Variable(numpy.array([0.5, 0.25]))
    y = prelu(x, W)
    y.grad = numpy.ones((2, 2))
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[0.5, 1.0], [0.5, 0.25]])
    numpy.testing.assert_array_equal(W.grad, [-3.0, -4.0])


def test_float32_in_float32_out():
    x = chainlite.Variable(_away_from_zero((2, 3, 4), numpy.float32))
    W = chainlite.Variable(_uniform((3,), numpy.float32, 1))
    y = prelu(x, W)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    assert W.grad.dtype == numpy.float32
    assert W.grad.shape == (3,)


def test_array_input():
    x, W = _away_from_zero((2, 3)), _uniform((3,), seed=1)
    y = prelu(x, W)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, _expected(x, W))


@pytest.mark.parametrize('x_shape, W_shape', [((2, 3), (2,)), ((2, 3), (3, 1)), ((), ()),
                                              ((3,), (3,))])
def test_bad_W_shape_is_invalid(x_shape, W_shape):
    msg = re.escape('Invalid operation is performed in: PReLUFunction (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        prelu(numpy.zeros(x_shape), numpy.zeros(W_shape))


@pytest.mark.parametrize('x_dtype, W_dtype', [(numpy.int32, numpy.int32),
                                              (numpy.float32, numpy.float64)])
def test_bad_dtypes_are_invalid(x_dtype, W_dtype):
    msg = re.escape('Invalid operation is performed in: PReLUFunction (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        prelu(numpy.zeros((2, 3), x_dtype), numpy.zeros(3, W_dtype))
