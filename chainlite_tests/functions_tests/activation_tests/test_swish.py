"""swish: forward against NumPy for several beta shapes, gradients (x and beta) to 2nd order."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.activation.swish import swish
from chainlite.utils import type_check

# (x shape, beta shape): beta lines up with x's axes 1..M; x needs a batch axis, so () is
# not a valid x (tested below).
CASES = [((3,), ()), ((2, 3), ()), ((2, 3), (3,)), ((2, 3, 4), (3,)), ((2, 3, 4), (3, 4)),
         ((2, 3, 4, 2), (3,))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 3e-3, 'rtol': 3e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-14, 'rtol': 1e-14}}


def _uniform(shape, dtype=numpy.float64, seed=0, lo=-2, hi=2):
    # Smooth in x and beta; moderate ranges keep sigmoid off its flat tails.
    return numpy.asarray(numpy.random.RandomState(seed).uniform(lo, hi, shape)).astype(dtype)


def _expected(x, beta):
    x = x.astype(numpy.float64)
    b = beta.astype(numpy.float64).reshape((1,) + beta.shape + (1,) * (x.ndim - beta.ndim - 1))
    return x / (1 + numpy.exp(-b * x))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('x_shape, beta_shape', CASES)
def test_forward(x_shape, beta_shape, dtype):
    x, beta = _uniform(x_shape, dtype), _uniform(beta_shape, dtype, 1, 0.5, 2)
    y = swish(chainlite.Variable(x), chainlite.Variable(beta))
    assert y.shape == x_shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _expected(x, beta), **TOL[dtype])


def test_beta_zero_halves_x():
    x = _uniform((2, 3))
    numpy.testing.assert_allclose(swish(x, numpy.zeros(3)).array, x / 2)


@pytest.mark.parametrize('x_shape, beta_shape', CASES)
def test_backward(x_shape, beta_shape):
    gradient_check.check_backward(
        swish, (_uniform(x_shape), _uniform(beta_shape, seed=1, lo=-2, hi=2)),
        (_uniform(x_shape, seed=2),))


@pytest.mark.parametrize('x_shape, beta_shape', CASES)
def test_double_backward(x_shape, beta_shape):
    gradient_check.check_double_backward(
        swish, (_uniform(x_shape), _uniform(beta_shape, seed=1, lo=-2, hi=2)),
        (_uniform(x_shape, seed=2),), (_uniform(x_shape, seed=3), _uniform(beta_shape, seed=4)))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    beta = chainlite.Variable(_uniform((3,), numpy.float32, 1, 0.5, 2))
    y = swish(x, beta)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    assert beta.grad.dtype == numpy.float32
    assert beta.grad.shape == (3,)


def test_array_input():
    x, beta = _uniform((2, 3)), _uniform((3,), seed=1)
    y = swish(x, beta)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, _expected(x, beta))


@pytest.mark.parametrize('x_shape, beta_shape', [((2, 3), (2,)), ((2, 3), (3, 1)), ((), ()),
                                                 ((3,), (3,))])
def test_bad_beta_shape_is_invalid(x_shape, beta_shape):
    msg = re.escape('Invalid operation is performed in: Swish (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        swish(numpy.zeros(x_shape), numpy.zeros(beta_shape))


@pytest.mark.parametrize('x_dtype, beta_dtype', [(numpy.int32, numpy.int32),
                                                 (numpy.float32, numpy.float64)])
def test_bad_dtypes_are_invalid(x_dtype, beta_dtype):
    msg = re.escape('Invalid operation is performed in: Swish (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        swish(numpy.zeros((2, 3), x_dtype), numpy.zeros(3, beta_dtype))
