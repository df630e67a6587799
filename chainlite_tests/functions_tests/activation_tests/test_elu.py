"""elu: forward against NumPy, gradients to second order, alpha option, dtypes."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.activation.elu import elu
from chainlite.utils import type_check

SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 2e-3, 'rtol': 2e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-14, 'rtol': 1e-14}}


def _away_from_zero(shape, dtype=numpy.float64, seed=0):
    # The second derivative jumps at 0 (0 on the right, alpha on the left): |x| >= 0.1
    # keeps the finite differences of the double-backward check on one side.
    rng = numpy.random.RandomState(seed)
    x = rng.uniform(0.1, 2, shape) * rng.choice([-1, 1], shape)
    return numpy.asarray(x).astype(dtype)


def _uniform(shape, seed):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


def _expected(x, alpha):
    x = x.astype(numpy.float64)
    return numpy.where(x > 0, x, alpha * numpy.expm1(numpy.minimum(x, 0)))


@pytest.mark.parametrize('alpha', [1.0, 0.5])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype, alpha):
    x = _away_from_zero(shape, dtype)
    y = elu(chainlite.Variable(x), alpha=alpha)
    assert y.shape == shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _expected(x, alpha), **TOL[dtype])


def test_large_inputs_do_not_overflow():
    with numpy.errstate(all='raise'):
        y = elu(numpy.array([1000.0, -1000.0], numpy.float32))
    numpy.testing.assert_array_equal(y.array, [1000.0, -1.0])


@pytest.mark.parametrize('alpha', [1.0, 0.5])
@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape, alpha):
    gradient_check.check_backward(lambda x: elu(x, alpha), (_away_from_zero(shape),),
                                  (_uniform(shape, 1),))


@pytest.mark.parametrize('alpha', [1.0, 0.5])
@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape, alpha):
    gradient_check.check_double_backward(
        lambda x: elu(x, alpha), (_away_from_zero(shape),), (_uniform(shape, 1),),
        (_uniform(shape, 2),))


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_low_precision_in_same_dtype_out(dtype):
    x = chainlite.Variable(_away_from_zero((2, 3), dtype))
    y = elu(x, numpy.float64(0.5))  # a float64 scalar alpha must not promote
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == dtype
    xf = x.array.astype(numpy.float64)
    numpy.testing.assert_allclose(x.grad, numpy.where(xf > 0, 1, 0.5 * numpy.exp(xf)),
                                  rtol=2e-3)


def test_array_input():
    x = _away_from_zero((2, 3))
    y = elu(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, _expected(x, 1.0))


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: ELU (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        elu(numpy.zeros((2, 3), dtype))
