"""clipped_relu: forward against NumPy, gradients to second order, the z option, dtypes."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.activation.clipped_relu import clipped_relu
from chainlite.utils import type_check

SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _away_from_kinks(shape, z, dtype=numpy.float64, seed=0):
    # Kinks at 0 and z: values from three bands with a margin of 0.1 around each kink, so
    # finite differences (eps 1e-3) never straddle one.
    rng = numpy.random.RandomState(seed)
    band = rng.randint(0, 3, shape)
    lo = numpy.array([-1.0, 0.1, z + 0.1])[band]
    hi = numpy.array([-0.1, z - 0.1, z + 1.0])[band]
    return numpy.asarray(rng.uniform(0, 1, shape) * (hi - lo) + lo).astype(dtype)


def _uniform(shape, seed):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


@pytest.mark.parametrize('z', [20.0, 1.5])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype, z):
    x = _away_from_kinks(shape, z, dtype)
    y = clipped_relu(chainlite.Variable(x), z=z)
    assert y.shape == shape
    assert y.dtype == dtype
    expected = numpy.minimum(numpy.maximum(x.astype(numpy.float64), 0), z)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-3 if dtype == numpy.float16 else 0)


def test_default_z_is_20():
    numpy.testing.assert_array_equal(clipped_relu(numpy.array([-1.0, 5.0, 25.0])).array,
                                     [0.0, 5.0, 20.0])


@pytest.mark.parametrize('z', [20.0, 1.5])
@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape, z):
    gradient_check.check_backward(lambda x: clipped_relu(x, z),
                                  (_away_from_kinks(shape, z),), (_uniform(shape, 1),))


@pytest.mark.parametrize('z', [20.0, 1.5])
@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape, z):
    gradient_check.check_double_backward(
        lambda x: clipped_relu(x, z), (_away_from_kinks(shape, z),), (_uniform(shape, 1),),
        (_uniform(shape, 2),))


def test_gradient_is_zero_at_the_kinks():
    x = chainlite.Variable(numpy.array([0.0, 1.0, 2.0, 3.0]))
    y = clipped_relu(x, 2.0)
    y.grad = numpy.ones(4)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [0.0, 1.0, 0.0, 0.0])


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_low_precision_in_same_dtype_out(dtype):
    x = chainlite.Variable(_away_from_kinks((2, 3), 1.5, dtype))
    y = clipped_relu(x, numpy.float64(1.5))  # a float64 scalar z must not promote
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == dtype
    numpy.testing.assert_array_equal(x.grad, (x.array > 0) & (x.array < 1.5))


def test_array_input():
    y = clipped_relu(numpy.array([-1.0, 0.5, 3.0]), 2)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, [0.0, 0.5, 2.0])


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: ClippedReLU (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        clipped_relu(numpy.zeros((2, 3), dtype))


@pytest.mark.parametrize('z', [0.0, -1.0])
def test_non_positive_z_is_an_error(z):
    with pytest.raises(ValueError, match='ClippedReLU: z must be positive'):
        clipped_relu(numpy.zeros(3), z)


@pytest.mark.parametrize('z', ['1', None, True])
def test_non_number_z_is_a_type_error(z):
    with pytest.raises(TypeError, match='ClippedReLU: z must be a real number'):
        clipped_relu(numpy.zeros(3), z)
