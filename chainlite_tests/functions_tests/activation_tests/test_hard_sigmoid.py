"""hard_sigmoid: forward against NumPy, gradients to second order, dtypes."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.activation.hard_sigmoid import hard_sigmoid
from chainlite.utils import type_check

SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-3, 'rtol': 1e-3},
       numpy.float32: {'atol': 1e-7, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-15, 'rtol': 1e-15}}


def _away_from_kinks(shape, dtype=numpy.float64, seed=0):
    # Kinks at -2.5 and 2.5: values from three bands with a margin of 0.1 around each, so
    # finite differences (eps 1e-3) never straddle one.
    rng = numpy.random.RandomState(seed)
    band = rng.randint(0, 3, shape)
    lo = numpy.array([-4.0, -2.4, 2.6])[band]
    hi = numpy.array([-2.6, 2.4, 4.0])[band]
    return numpy.asarray(rng.uniform(0, 1, shape) * (hi - lo) + lo).astype(dtype)


def _uniform(shape, seed):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


def _expected(x):
    return numpy.clip(0.2 * x.astype(numpy.float64) + 0.5, 0, 1)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    x = _away_from_kinks(shape, dtype)
    y = hard_sigmoid(chainlite.Variable(x))
    assert y.shape == shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _expected(x), **TOL[dtype])


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    gradient_check.check_backward(hard_sigmoid, (_away_from_kinks(shape),),
                                  (_uniform(shape, 1),))


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    gradient_check.check_double_backward(
        hard_sigmoid, (_away_from_kinks(shape),), (_uniform(shape, 1),), (_uniform(shape, 2),))


def test_float32_in_float32_out():
    x = chainlite.Variable(_away_from_kinks((2, 3), numpy.float32))
    y = hard_sigmoid(x)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    numpy.testing.assert_allclose(x.grad, numpy.where(abs(x.array) < 2.5, 0.2, 0), rtol=1e-6)


def test_array_input():
    y = hard_sigmoid(numpy.array([-3.0, 0.0, 1.0, 3.0]))
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, [0.0, 0.5, 0.7, 1.0])


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: HardSigmoid (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        hard_sigmoid(numpy.zeros((2, 3), dtype))
