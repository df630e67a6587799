"""relu6: forward against NumPy, gradients to second order, dtypes."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.activation.relu6 import relu6
from chainlite.utils import type_check

SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _away_from_kinks(shape, dtype=numpy.float64, seed=0):
    # Kinks at 0 and 6: values from three bands with a margin of 0.1 around each kink, so
    # finite differences (eps 1e-3) never straddle one.
    rng = numpy.random.RandomState(seed)
    band = rng.randint(0, 3, shape)
    lo = numpy.array([-1.0, 0.1, 6.1])[band]
    hi = numpy.array([-0.1, 5.9, 7.0])[band]
    return numpy.asarray(rng.uniform(0, 1, shape) * (hi - lo) + lo).astype(dtype)


def _uniform(shape, seed):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    x = _away_from_kinks(shape, dtype)
    y = relu6(chainlite.Variable(x))
    assert y.shape == shape
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, numpy.clip(x, 0, 6))


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    gradient_check.check_backward(relu6, (_away_from_kinks(shape),), (_uniform(shape, 1),))


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    gradient_check.check_double_backward(
        relu6, (_away_from_kinks(shape),), (_uniform(shape, 1),), (_uniform(shape, 2),))


def test_float32_in_float32_out():
    x = chainlite.Variable(_away_from_kinks((2, 3), numpy.float32))
    y = relu6(x)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    numpy.testing.assert_array_equal(x.grad, (x.array > 0) & (x.array < 6))


def test_array_input():
    y = relu6(numpy.array([-1.0, 3.0, 7.0]))
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, [0.0, 3.0, 6.0])


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: ReLU6 (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        relu6(numpy.zeros((2, 3), dtype))
