"""Powers: PowVarVar (``x ** y``), PowVarConst (``x ** c``), PowConstVar (``c ** x``)."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math import pow as pow_
from chainlite.utils import type_check

SHAPE_PAIRS = [((), ()), ((3,), (3,)), ((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)),
               ((), (2, 3))]
SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}
EXPONENTS = [2, 0.5, -1, 3, 1.5, 0]


def _uniform(shape, dtype=numpy.float64, seed=0, low=-1.0, high=1.0):
    return numpy.random.RandomState(seed).uniform(low, high, shape).astype(dtype)


def _base(shape, dtype=numpy.float64, seed=0):
    # x ** y is real only for x > 0 (d/dy is log(x) * x ** y), and x ** c for a fractional
    # or negative c is singular at 0: bases in [0.5, 2] stay well away from both.
    return _uniform(shape, dtype, seed, 0.5, 2.0)


def _pow(a, b):
    return pow_.PowVarVar().apply((a, b))[0]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_var_var_forward(shapes, dtype):
    a, b = _base(shapes[0], dtype), _uniform(shapes[1], dtype, seed=1, low=-2, high=2)
    expected = a.astype(numpy.float64) ** b.astype(numpy.float64)
    va, vb = chainlite.Variable(a), chainlite.Variable(b)
    for y in (va ** vb, _pow(va, vb)):
        assert isinstance(y.creator, pow_.PowVarVar)
        assert y.shape == expected.shape
        assert y.dtype == dtype
        numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_var_var_backward(shapes):
    a, b = _base(shapes[0]), _uniform(shapes[1], seed=1, low=-2, high=2)
    gy = _uniform(numpy.broadcast_shapes(*shapes), seed=2)
    gradient_check.check_backward(_pow, (a, b), (gy,))


@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_var_var_double_backward(shapes):
    a, b = _base(shapes[0]), _uniform(shapes[1], seed=1, low=-2, high=2)
    gy = _uniform(numpy.broadcast_shapes(*shapes), seed=2)
    gga, ggb = _uniform(shapes[0], seed=3), _uniform(shapes[1], seed=4)
    gradient_check.check_double_backward(_pow, (a, b), (gy,), (gga, ggb))


@pytest.mark.parametrize('c', EXPONENTS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_var_const_forward(shape, dtype, c):
    x = _base(shape, dtype)
    for y in (chainlite.Variable(x) ** c, pow_.PowVarConst(c).apply((x,))[0]):
        assert y.shape == shape
        assert y.dtype == dtype
        numpy.testing.assert_allclose(y.array, x.astype(numpy.float64) ** c, **TOL[dtype])
    assert isinstance((chainlite.Variable(x) ** c).creator, pow_.PowVarConst)


def test_square_of_negative_values():
    # An integer exponent needs no positive base.
    x = chainlite.Variable(numpy.array([-1.5, 0.0, 2.0]))
    y = x ** 2
    numpy.testing.assert_array_equal(y.array, [2.25, 0.0, 4.0])
    y.grad = numpy.ones(3)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [-3.0, 0.0, 4.0])


@pytest.mark.parametrize('c', EXPONENTS)
@pytest.mark.parametrize('shape', SHAPES)
def test_var_const_backward(shape, c):
    gradient_check.check_backward(lambda x: x ** c, (_base(shape),), (_uniform(shape, seed=1),))


@pytest.mark.parametrize('c', EXPONENTS)
@pytest.mark.parametrize('shape', SHAPES)
def test_var_const_double_backward(shape, c):
    x, gy, ggx = _base(shape), _uniform(shape, seed=1), _uniform(shape, seed=2)
    gradient_check.check_double_backward(lambda x: x ** c, (x,), (gy,), (ggx,))


@pytest.mark.parametrize('c', [2.0, 0.5, numpy.e])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_const_var_forward(shape, dtype, c):
    x = _uniform(shape, dtype, low=-2, high=2)
    for y in (c ** chainlite.Variable(x), pow_.PowConstVar(c).apply((x,))[0]):
        assert y.shape == shape
        assert y.dtype == dtype
        numpy.testing.assert_allclose(y.array, c ** x.astype(numpy.float64), **TOL[dtype])
    assert isinstance((c ** chainlite.Variable(x)).creator, pow_.PowConstVar)


@pytest.mark.parametrize('c', [2.0, 0.5])
@pytest.mark.parametrize('shape', SHAPES)
def test_const_var_backward(shape, c):
    # A positive constant base: d/dx c ** x = log(c) * c ** x is defined for every x.
    x, gy = _uniform(shape, low=-2, high=2), _uniform(shape, seed=1)
    gradient_check.check_backward(lambda x: c ** x, (x,), (gy,))


@pytest.mark.parametrize('c', [2.0, 0.5])
@pytest.mark.parametrize('shape', SHAPES)
def test_const_var_double_backward(shape, c):
    x, gy, ggx = _uniform(shape, low=-2, high=2), _uniform(shape, seed=1), _uniform(shape, seed=2)
    gradient_check.check_double_backward(lambda x: c ** x, (x,), (gy,), (ggx,))


def test_labels():
    assert pow_.PowVarVar().label == '_ ** _'
    assert pow_.PowVarConst(2).label == '_ ** 2'
    assert pow_.PowVarConst(-1).label == '_ ** (-1)'
    assert pow_.PowConstVar(2.5).label == '2.5 ** _'


@pytest.mark.parametrize('f', [lambda a, b: a ** b, lambda a, b: a ** 0.5,
                               lambda a, b: 2.0 ** a, lambda a, b: a ** 2])
def test_float32_in_float32_out(f):
    a = chainlite.Variable(_base((2, 3), numpy.float32))
    b = chainlite.Variable(_uniform((3,), numpy.float32, seed=1))
    y = f(a, b)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert a.grad.dtype == numpy.float32
    assert b.grad is None or b.grad.dtype == numpy.float32


def test_arrays_and_variables_mix():
    a, b = _base((2, 3)), _uniform((2, 3), seed=1)
    for lhs, rhs in ((a, b), (chainlite.Variable(a), b), (a, chainlite.Variable(b))):
        y = _pow(lhs, rhs)
        assert isinstance(y, chainlite.Variable)
        numpy.testing.assert_allclose(y.array, a ** b)
    numpy.testing.assert_allclose(pow_.PowVarConst(3).apply((a,))[0].array, a ** 3)
    numpy.testing.assert_allclose(pow_.PowConstVar(3).apply((b,))[0].array, 3 ** b)


def test_mismatched_dtypes_are_invalid():
    msg = re.escape('Invalid operation is performed in: _ ** _ (Forward)')
    a = chainlite.Variable(numpy.ones(3, numpy.float32))
    b = chainlite.Variable(numpy.ones(3, numpy.float64))
    with pytest.raises(type_check.InvalidType, match=msg):
        a ** b
    with pytest.raises(type_check.InvalidType, match=msg):
        _pow(a.array, b.array)


def test_integer_inputs_are_invalid():
    x = numpy.arange(1, 4)
    with pytest.raises(type_check.InvalidType, match=re.escape('_ ** _ (Forward)')):
        _pow(x, x)
    with pytest.raises(type_check.InvalidType, match=re.escape('_ ** 2 (Forward)')):
        pow_.PowVarConst(2).apply((x,))
    with pytest.raises(type_check.InvalidType, match=re.escape('2 ** _ (Forward)')):
        pow_.PowConstVar(2).apply((x,))


def test_unbroadcastable_shapes_are_invalid():
    msg = re.escape('Invalid operation is performed in: _ ** _ (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        chainlite.Variable(numpy.ones((2, 3))) ** chainlite.Variable(numpy.ones((2,)))
