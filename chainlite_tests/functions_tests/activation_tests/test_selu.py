"""selu: forward against NumPy, Chainer's default constants, gradients to second order."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.activation.selu import selu
from chainlite.utils import type_check

SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 3e-3, 'rtol': 3e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-14, 'rtol': 1e-14}}
ALPHA, SCALE = 1.6732632423543772, 1.0507009873554805


def _away_from_zero(shape, dtype=numpy.float64, seed=0):
    # The first derivative jumps at 0 (scale on the right, scale * alpha on the left):
    # |x| >= 0.1 keeps finite differences on one side.
    rng = numpy.random.RandomState(seed)
    x = rng.uniform(0.1, 2, shape) * rng.choice([-1, 1], shape)
    return numpy.asarray(x).astype(dtype)


def _uniform(shape, seed):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


def _expected(x, alpha=ALPHA, scale=SCALE):
    x = x.astype(numpy.float64)
    return scale * numpy.where(x > 0, x, alpha * numpy.expm1(numpy.minimum(x, 0)))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    x = _away_from_zero(shape, dtype)
    y = selu(chainlite.Variable(x))
    assert y.shape == shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _expected(x), **TOL[dtype])


def test_options():
    x = _away_from_zero((2, 3))
    numpy.testing.assert_allclose(selu(x, alpha=0.5, scale=2.0).array,
                                  _expected(x, 0.5, 2.0), rtol=1e-14)


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    gradient_check.check_backward(selu, (_away_from_zero(shape),), (_uniform(shape, 1),))
    gradient_check.check_backward(lambda x: selu(x, 0.5, 2.0), (_away_from_zero(shape),),
                                  (_uniform(shape, 1),))


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    gradient_check.check_double_backward(
        selu, (_away_from_zero(shape),), (_uniform(shape, 1),), (_uniform(shape, 2),))


def test_float32_in_float32_out():
    x = chainlite.Variable(_away_from_zero((2, 3), numpy.float32))
    y = selu(x)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    xf = x.array.astype(numpy.float64)
    numpy.testing.assert_allclose(
        x.grad, SCALE * numpy.where(xf > 0, 1, ALPHA * numpy.exp(xf)), rtol=1e-5)


def test_array_input():
    x = _away_from_zero((2, 3))
    y = selu(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, _expected(x))


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: SELU (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        selu(numpy.zeros((2, 3), dtype))
