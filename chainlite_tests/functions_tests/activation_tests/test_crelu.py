"""crelu: forward against NumPy over several axes, gradients to second order, bad axes."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.activation.crelu import crelu
from chainlite.utils import type_check

# (shape, axis); crelu needs an axis, so () is not allowed (tested below).
CASES = [((3,), 0), ((3,), -1), ((2, 3), 1), ((2, 3), 0), ((2, 3, 4), 1), ((2, 3, 4), -1)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _away_from_zero(shape, dtype=numpy.float64, seed=0):
    # Both halves have a kink at 0: |x| >= 0.1 keeps finite differences on one side.
    rng = numpy.random.RandomState(seed)
    x = rng.uniform(0.1, 1, shape) * rng.choice([-1, 1], shape)
    return numpy.asarray(x).astype(dtype)


def _uniform(shape, seed):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


def _out_shape(shape, axis):
    s = list(shape)
    s[axis] *= 2
    return tuple(s)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, axis', CASES)
def test_forward(shape, axis, dtype):
    x = _away_from_zero(shape, dtype)
    y = crelu(chainlite.Variable(x), axis=axis)
    assert y.dtype == dtype
    expected = numpy.concatenate([numpy.maximum(x, 0), numpy.maximum(-x, 0)], axis=axis)
    numpy.testing.assert_array_equal(y.array, expected)


def test_default_axis_is_1():
    x = _away_from_zero((2, 3))
    assert crelu(x).shape == (2, 6)


@pytest.mark.parametrize('shape, axis', CASES)
def test_backward(shape, axis):
    gradient_check.check_backward(lambda x: crelu(x, axis), (_away_from_zero(shape),),
                                  (_uniform(_out_shape(shape, axis), 1),))


@pytest.mark.parametrize('shape, axis', CASES)
def test_double_backward(shape, axis):
    gradient_check.check_double_backward(
        lambda x: crelu(x, axis), (_away_from_zero(shape),),
        (_uniform(_out_shape(shape, axis), 1),), (_uniform(shape, 2),))


def test_float32_in_float32_out():
    x = chainlite.Variable(_away_from_zero((2, 3), numpy.float32))
    y = crelu(x)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    numpy.testing.assert_array_equal(x.grad, numpy.sign(x.array))


def test_array_input():
    y = crelu(numpy.array([[-1.0, 2.0]]))
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, [[0.0, 2.0, 1.0, 0.0]])


@pytest.mark.parametrize('shape, axis', [((), 0), ((3,), 1), ((2, 3), -3), ((2, 3), 2)])
def test_axis_out_of_range_is_invalid(shape, axis):
    msg = re.escape('Invalid operation is performed in: CReLU (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        crelu(numpy.zeros(shape), axis)


def test_non_integer_axis_is_a_type_error():
    with pytest.raises(TypeError, match='axis'):
        crelu(numpy.zeros((2, 3)), 1.0)


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: CReLU (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        crelu(numpy.zeros((2, 3), dtype))
