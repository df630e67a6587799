"""Absolute (``abs(x)``, F.absolute): forward, gradients to second order, dtypes, errors."""
import re

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import gradient_check
from chainlite.functions.math import absolute
from chainlite.utils import type_check

SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _away_from_zero(shape, dtype=numpy.float64, seed=0):
    # |x| has a kink at 0: magnitudes in [0.5, 2] with random signs keep x +- eps on one
    # side of it, where the numerical gradient is the true sign(x).
    r = numpy.random.RandomState(seed)
    x = r.uniform(0.5, 2, shape) * r.choice([-1, 1], shape)
    return numpy.asarray(x, dtype)


def _uniform(shape, seed):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    x = _away_from_zero(shape, dtype)
    for y in (F.absolute(chainlite.Variable(x)), abs(chainlite.Variable(x))):
        assert y.shape == shape
        assert y.dtype == dtype
        numpy.testing.assert_array_equal(y.array, numpy.abs(x))


def test_operator_creates_absolute():
    y = abs(chainlite.Variable(numpy.array([1.0, -2.0])))
    assert isinstance(y.creator, absolute.Absolute)
    assert y.creator.label == '|_|'


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    gradient_check.check_backward(F.absolute, (_away_from_zero(shape),), (_uniform(shape, 1),))


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    # sign(x) is locally constant, so the second derivative of |x| is 0 away from 0.
    gradient_check.check_double_backward(
        F.absolute, (_away_from_zero(shape),), (_uniform(shape, 1),), (_uniform(shape, 2),))


def test_gradient_at_zero_is_zero():
    x = chainlite.Variable(numpy.array([-1.0, 0.0, 2.0]))
    y = F.absolute(x)
    y.grad = numpy.ones(3)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [-1.0, 0.0, 1.0])


def test_float32_in_float32_out():
    x = chainlite.Variable(_away_from_zero((2, 3), numpy.float32))
    y = F.absolute(x)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    numpy.testing.assert_array_equal(x.grad, numpy.sign(x.array))


def test_array_input():
    x = _away_from_zero((2, 3))
    y = F.absolute(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, numpy.abs(x))


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.int64])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: |_| (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        F.absolute(numpy.array([-1, 2], dtype))
