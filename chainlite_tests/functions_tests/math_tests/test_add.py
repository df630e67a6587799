"""Add (``x + y``), AddConstant (``x + c``) and the variadic F.add."""
import re

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import gradient_check
from chainlite.functions.math import add
from chainlite.utils import type_check

# Pairs of shapes, broadcasting included (0-d with n-d, (2, 1) with (1, 3), ...).
SHAPE_PAIRS = [((), ()), ((3,), (3,)), ((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)),
               ((), (2, 3))]
SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-3, 'rtol': 1e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Addition is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _out_shape(*shapes):
    return numpy.broadcast_shapes(*shapes)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_forward(shapes, dtype):
    a, b = _uniform(shapes[0], dtype), _uniform(shapes[1], dtype, seed=1)
    expected = a.astype(numpy.float64) + b.astype(numpy.float64)
    va, vb = chainlite.Variable(a), chainlite.Variable(b)
    for y in (va + vb, add.Add().apply((va, vb))[0], F.add(va, vb)):
        assert y.shape == expected.shape
        assert y.dtype == dtype
        numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_backward(shapes):
    a, b = _uniform(shapes[0]), _uniform(shapes[1], seed=1)
    gy = _uniform(_out_shape(*shapes), seed=2)
    gradient_check.check_backward(lambda a, b: a + b, (a, b), (gy,))


@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_double_backward(shapes):
    a, b = _uniform(shapes[0]), _uniform(shapes[1], seed=1)
    gy = _uniform(_out_shape(*shapes), seed=2)
    gga, ggb = _uniform(shapes[0], seed=3), _uniform(shapes[1], seed=4)
    gradient_check.check_double_backward(lambda a, b: a + b, (a, b), (gy,), (gga, ggb))


def test_broadcast_gradient_sums_over_broadcast_axes():
    a = chainlite.Variable(numpy.zeros((2, 1)))
    b = chainlite.Variable(numpy.zeros(3))
    y = a + b
    y.grad = numpy.arange(6.0).reshape(2, 3)
    y.backward()
    numpy.testing.assert_array_equal(a.grad, [[3.0], [12.0]])
    numpy.testing.assert_array_equal(b.grad, [3.0, 5.0, 7.0])


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_add_constant_forward(shape, dtype):
    x = _uniform(shape, dtype)
    for y in (chainlite.Variable(x) + 2.5, 2.5 + chainlite.Variable(x),
              add.AddConstant(2.5).apply((chainlite.Variable(x),))[0]):
        assert isinstance(y.creator, add.AddConstant)
        assert y.shape == shape
        assert y.dtype == dtype
        numpy.testing.assert_allclose(y.array, x.astype(numpy.float64) + 2.5, **TOL[dtype])


@pytest.mark.parametrize('shape', SHAPES)
def test_add_constant_backward(shape):
    gradient_check.check_backward(lambda x: x + 2.5, (_uniform(shape),), (_uniform(shape, seed=1),))


@pytest.mark.parametrize('shape', SHAPES)
def test_add_constant_double_backward(shape):
    x, gy, ggx = _uniform(shape), _uniform(shape, seed=1), _uniform(shape, seed=2)
    gradient_check.check_double_backward(lambda x: x + 2.5, (x,), (gy,), (ggx,))
    # Second-order terms of an enclosing expression pass through unchanged.
    gradient_check.check_double_backward(lambda x: (x + 2.5) * x, (x,), (gy,), (ggx,))


def test_add_constant_label():
    assert add.AddConstant(2).label == '_ + 2'
    assert add.AddConstant(-2.5).label == '_ + (-2.5)'
    assert add.Add().label == '_ + _'


def test_variadic_forward_and_backward():
    xs = [_uniform((2, 3)), _uniform((3,), seed=1), _uniform((2, 1), seed=2),
          _uniform((), seed=3)]
    y = F.add(*[chainlite.Variable(x) for x in xs])
    numpy.testing.assert_allclose(y.array, xs[0] + xs[1] + xs[2] + xs[3])
    gy = _uniform((2, 3), seed=4)
    gradient_check.check_backward(lambda *v: F.add(*v), tuple(xs), (gy,))
    ggxs = tuple(_uniform(x.shape, seed=5 + i) for i, x in enumerate(xs))
    gradient_check.check_double_backward(lambda *v: F.add(*v), tuple(xs), (gy,), ggxs)


def test_variadic_single_input_and_no_input():
    x = _uniform((2, 3))
    y = F.add(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, x)
    v = chainlite.Variable(x)
    assert F.add(v) is v
    with pytest.raises(TypeError):
        F.add()


def test_float32_in_float32_out():
    a = chainlite.Variable(_uniform((2, 3), numpy.float32))
    b = chainlite.Variable(_uniform((3,), numpy.float32, seed=1))
    y = a + b + 1.5
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert a.grad.dtype == numpy.float32
    assert b.grad.dtype == numpy.float32
    numpy.testing.assert_array_equal(b.grad, [2.0, 2.0, 2.0])


def test_arrays_and_variables_mix():
    a, b = _uniform((2, 3)), _uniform((2, 3), seed=1)
    for lhs, rhs in ((a, b), (chainlite.Variable(a), b), (a, chainlite.Variable(b))):
        y = add.Add().apply((lhs, rhs))[0]
        assert isinstance(y, chainlite.Variable)
        numpy.testing.assert_array_equal(y.array, a + b)
    numpy.testing.assert_array_equal(F.add(a, b, a).array, a + b + a)


def test_mismatched_dtypes_are_invalid():
    msg = re.escape('Invalid operation is performed in: _ + _ (Forward)')
    a = chainlite.Variable(numpy.zeros(3, numpy.float32))
    b = chainlite.Variable(numpy.zeros(3, numpy.float64))
    with pytest.raises(type_check.InvalidType, match=msg):
        a + b
    with pytest.raises(type_check.InvalidType, match=msg):
        F.add(a.array, b.array)


def test_unbroadcastable_shapes_are_invalid():
    msg = re.escape('Invalid operation is performed in: _ + _ (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        chainlite.Variable(numpy.zeros((2, 3))) + chainlite.Variable(numpy.zeros(4))
    with pytest.raises(type_check.InvalidType, match=msg):
        F.add(numpy.zeros((2, 3)), numpy.zeros((2, 3)), numpy.zeros((3, 2)))
