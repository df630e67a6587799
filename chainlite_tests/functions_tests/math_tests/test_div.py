"""Div (``x / y``), DivFromConstant (``c / x``) and ``x / c`` (a MulConstant of 1/c)."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math import div
from chainlite.functions.math import mul
from chainlite.utils import type_check

SHAPE_PAIRS = [((), ()), ((3,), (3,)), ((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)),
               ((), (2, 3))]
SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-3, 'rtol': 2e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _uniform(shape, dtype=numpy.float64, seed=0):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _denominator(shape, dtype=numpy.float64, seed=1):
    # 1/y is singular at 0: |y| in [0.5, 2] with random signs keeps y +- eps far from it,
    # and keeps -x/y**2 and 2x/y**3 moderate for the numerical derivatives.
    r = numpy.random.RandomState(seed)
    return numpy.asarray(r.uniform(0.5, 2, shape) * r.choice([-1, 1], shape), dtype)


def _div(a, b):
    return div.Div().apply((a, b))[0]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_forward(shapes, dtype):
    a, b = _uniform(shapes[0], dtype), _denominator(shapes[1], dtype)
    expected = a.astype(numpy.float64) / b.astype(numpy.float64)
    va, vb = chainlite.Variable(a), chainlite.Variable(b)
    for y in (va / vb, _div(va, vb)):
        assert isinstance(y.creator, div.Div)
        assert y.shape == expected.shape
        assert y.dtype == dtype
        numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_backward(shapes):
    a, b = _uniform(shapes[0]), _denominator(shapes[1])
    gy = _uniform(numpy.broadcast_shapes(*shapes), seed=2)
    gradient_check.check_backward(_div, (a, b), (gy,))


@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_double_backward(shapes):
    a, b = _uniform(shapes[0]), _denominator(shapes[1])
    gy = _uniform(numpy.broadcast_shapes(*shapes), seed=2)
    gga, ggb = _uniform(shapes[0], seed=3), _uniform(shapes[1], seed=4)
    gradient_check.check_double_backward(_div, (a, b), (gy,), (gga, ggb))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_constant_forward(shape, dtype):
    x = _denominator(shape, dtype)
    x64 = x.astype(numpy.float64)
    y = chainlite.Variable(x) / 4.0
    # As in Chainer, x / c is x * (1 / c).
    assert isinstance(y.creator, mul.MulConstant)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, x64 / 4.0, **TOL[dtype])
    for y in (3.0 / chainlite.Variable(x), div.DivFromConstant(3.0).apply((x,))[0]):
        assert y.shape == shape
        assert y.dtype == dtype
        numpy.testing.assert_allclose(y.array, 3.0 / x64, **TOL[dtype])
    assert isinstance((3.0 / chainlite.Variable(x)).creator, div.DivFromConstant)


@pytest.mark.parametrize('shape', SHAPES)
def test_constant_backward(shape):
    x, gy = _denominator(shape), _uniform(shape, seed=2)
    gradient_check.check_backward(lambda x: 3.0 / x, (x,), (gy,))
    gradient_check.check_backward(lambda x: x / 4.0, (x,), (gy,))


@pytest.mark.parametrize('shape', SHAPES)
def test_constant_double_backward(shape):
    x, gy, ggx = _denominator(shape), _uniform(shape, seed=2), _uniform(shape, seed=3)
    gradient_check.check_double_backward(lambda x: 3.0 / x, (x,), (gy,), (ggx,))
    gradient_check.check_double_backward(lambda x: x / 4.0 * x, (x,), (gy,), (ggx,))


def test_labels():
    assert div.Div().label == '_ / _'
    assert div.DivFromConstant(2).label == '2 / _'
    assert div.DivFromConstant(-2).label == '(-2) / _'


def test_float32_in_float32_out():
    a = chainlite.Variable(_uniform((2, 3), numpy.float32))
    b = chainlite.Variable(_denominator((3,), numpy.float32))
    y = 2.0 / (a / b)
    assert y.dtype == numpy.float32
    y = a / b / 3.0
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert a.grad.dtype == numpy.float32
    assert b.grad.dtype == numpy.float32


def test_arrays_and_variables_mix():
    a, b = _uniform((2, 3)), _denominator((2, 3))
    for lhs, rhs in ((a, b), (chainlite.Variable(a), b), (a, chainlite.Variable(b))):
        y = _div(lhs, rhs)
        assert isinstance(y, chainlite.Variable)
        numpy.testing.assert_array_equal(y.array, a / b)


def test_mismatched_dtypes_are_invalid():
    msg = re.escape('Invalid operation is performed in: _ / _ (Forward)')
    a = chainlite.Variable(numpy.ones(3, numpy.float32))
    b = chainlite.Variable(numpy.ones(3, numpy.float64))
    with pytest.raises(type_check.InvalidType, match=msg):
        a / b
    with pytest.raises(type_check.InvalidType, match=msg):
        _div(a.array, b.array)


def test_integer_inputs_are_invalid():
    with pytest.raises(type_check.InvalidType, match=re.escape('_ / _ (Forward)')):
        _div(numpy.arange(1, 4), numpy.arange(1, 4))
    with pytest.raises(type_check.InvalidType, match=re.escape('2 / _ (Forward)')):
        div.DivFromConstant(2).apply((numpy.arange(1, 4),))


def test_unbroadcastable_shapes_are_invalid():
    msg = re.escape('Invalid operation is performed in: _ / _ (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        chainlite.Variable(numpy.ones((2, 3))) / chainlite.Variable(numpy.ones((2,)))
