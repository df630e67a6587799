"""Mul (``x * y``) and MulConstant (``x * c``, ``c * x``)."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math import mul
from chainlite.utils import type_check

SHAPE_PAIRS = [((), ()), ((3,), (3,)), ((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)),
               ((), (2, 3))]
SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-3, 'rtol': 1e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Multiplication is smooth everywhere: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _mul(a, b):
    return mul.Mul().apply((a, b))[0]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_forward(shapes, dtype):
    a, b = _uniform(shapes[0], dtype), _uniform(shapes[1], dtype, seed=1)
    expected = a.astype(numpy.float64) * b.astype(numpy.float64)
    va, vb = chainlite.Variable(a), chainlite.Variable(b)
    for y in (va * vb, _mul(va, vb)):
        assert isinstance(y.creator, mul.Mul)
        assert y.shape == expected.shape
        assert y.dtype == dtype
        numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_backward(shapes):
    a, b = _uniform(shapes[0]), _uniform(shapes[1], seed=1)
    gy = _uniform(numpy.broadcast_shapes(*shapes), seed=2)
    gradient_check.check_backward(_mul, (a, b), (gy,))


@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_double_backward(shapes):
    a, b = _uniform(shapes[0]), _uniform(shapes[1], seed=1)
    gy = _uniform(numpy.broadcast_shapes(*shapes), seed=2)
    gga, ggb = _uniform(shapes[0], seed=3), _uniform(shapes[1], seed=4)
    gradient_check.check_double_backward(_mul, (a, b), (gy,), (gga, ggb))


def test_square_by_self():
    # Both inputs are one variable: the two gradient contributions must add up.
    x = chainlite.Variable(numpy.array([1.5, -2.0]))
    y = x * x
    y.grad = numpy.ones(2)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [3.0, -4.0])


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_constant_forward(shape, dtype):
    x = _uniform(shape, dtype)
    for y in (chainlite.Variable(x) * 2.5, 2.5 * chainlite.Variable(x),
              mul.MulConstant(2.5).apply((x,))[0]):
        assert isinstance(y.creator, mul.MulConstant) or y.creator is None
        assert y.shape == shape
        assert y.dtype == dtype
        numpy.testing.assert_allclose(y.array, x.astype(numpy.float64) * 2.5, **TOL[dtype])


@pytest.mark.parametrize('shape', SHAPES)
def test_constant_backward(shape):
    x, gy = _uniform(shape), _uniform(shape, seed=1)
    gradient_check.check_backward(lambda x: x * 2.5, (x,), (gy,))
    gradient_check.check_backward(lambda x: -3 * x, (x,), (gy,))


@pytest.mark.parametrize('shape', SHAPES)
def test_constant_double_backward(shape):
    x, gy, ggx = _uniform(shape), _uniform(shape, seed=1), _uniform(shape, seed=2)
    gradient_check.check_double_backward(lambda x: x * 2.5, (x,), (gy,), (ggx,))
    gradient_check.check_double_backward(lambda x: (x * 2.5) * x, (x,), (gy,), (ggx,))


def test_labels():
    assert mul.Mul().label == '_ * _'
    assert mul.MulConstant(2).label == '_ * 2'
    assert mul.MulConstant(-2).label == '_ * (-2)'


def test_float32_in_float32_out():
    a = chainlite.Variable(_uniform((2, 3), numpy.float32))
    b = chainlite.Variable(_uniform((3,), numpy.float32, seed=1))
    y = a * b * 3.0
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert a.grad.dtype == numpy.float32
    assert b.grad.dtype == numpy.float32
    numpy.testing.assert_allclose(b.grad, 3 * a.array.sum(axis=0), rtol=1e-6)


def test_arrays_and_variables_mix():
    a, b = _uniform((2, 3)), _uniform((2, 3), seed=1)
    for lhs, rhs in ((a, b), (chainlite.Variable(a), b), (a, chainlite.Variable(b))):
        y = _mul(lhs, rhs)
        assert isinstance(y, chainlite.Variable)
        numpy.testing.assert_array_equal(y.array, a * b)


def test_mismatched_dtypes_are_invalid():
    msg = re.escape('Invalid operation is performed in: _ * _ (Forward)')
    a = chainlite.Variable(numpy.zeros(3, numpy.float32))
    b = chainlite.Variable(numpy.zeros(3, numpy.float64))
    with pytest.raises(type_check.InvalidType, match=msg):
        a * b
    with pytest.raises(type_check.InvalidType, match=msg):
        _mul(a.array, b.array)


def test_integer_inputs_are_invalid():
    msg = re.escape('Invalid operation is performed in: _ * _ (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        _mul(numpy.arange(3), numpy.arange(3))


def test_unbroadcastable_shapes_are_invalid():
    msg = re.escape('Invalid operation is performed in: _ * _ (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        chainlite.Variable(numpy.zeros((2, 3))) * chainlite.Variable(numpy.zeros((2,)))
