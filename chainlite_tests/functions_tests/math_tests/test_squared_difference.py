"""squared_difference: forward, gradients to second order, broadcasting, dtypes, bad inputs."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.squared_difference import squared_difference
from chainlite.utils import type_check

# Equal shapes (Chainer's case) and broadcasting ones (an addition of chainlite).
SHAPE_PAIRS = [((), ()), ((3,), (3,)), ((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)),
               ((), (2, 3))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _inputs(sa, sb, dtype=numpy.float64):
    # A polynomial, smooth everywhere: any values will do.
    a = numpy.random.RandomState(0).uniform(-1, 1, sa).astype(dtype)
    b = numpy.random.RandomState(1).uniform(-1, 1, sb).astype(dtype)
    return a, b


def _gy(shape, seed):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


def _ref(a, b):
    return (a - b) ** 2


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_forward(shapes, dtype):
    a, b = _inputs(*shapes, dtype=dtype)
    y = squared_difference(chainlite.Variable(a), chainlite.Variable(b))
    expected = _ref(a.astype(numpy.float64), b.astype(numpy.float64))
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_backward(shapes):
    a, b = _inputs(*shapes)
    gy = _gy(numpy.broadcast_shapes(*shapes), 2)
    gradient_check.check_backward(squared_difference, (a, b), (gy,))


@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_double_backward(shapes):
    a, b = _inputs(*shapes)
    gy = _gy(numpy.broadcast_shapes(*shapes), 2)
    gradient_check.check_double_backward(squared_difference, (a, b), (gy,),
                                         (_gy(shapes[0], 3), _gy(shapes[1], 4)))


def test_float32_in_float32_out():
    a, b = _inputs((2, 3), (3,), dtype=numpy.float32)
    va, vb = chainlite.Variable(a), chainlite.Variable(b)
    y = squared_difference(va, vb)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert va.grad.dtype == numpy.float32
    assert vb.grad.dtype == numpy.float32
    assert va.grad.shape == (2, 3)
    assert vb.grad.shape == (3,)
    a, b = a.astype(numpy.float64), b.astype(numpy.float64)
    numpy.testing.assert_allclose(va.grad, 2 * (a - b), rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(vb.grad, (-2 * (a - b)).sum(axis=0), rtol=1e-5, atol=1e-6)


def test_arrays_and_variables_mix():
    a, b = _inputs((2, 3), (2, 3))
    for lhs, rhs in ((a, b), (chainlite.Variable(a), b), (a, chainlite.Variable(b))):
        y = squared_difference(lhs, rhs)
        assert isinstance(y, chainlite.Variable)
        numpy.testing.assert_allclose(y.array, _ref(a, b))


def test_mismatched_dtypes_are_invalid():
    msg = re.escape('Invalid operation is performed in: SquaredDifference (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        squared_difference(numpy.ones(3, numpy.float32), numpy.ones(3, numpy.float64))


def test_integer_inputs_are_invalid():
    msg = re.escape('Invalid operation is performed in: SquaredDifference (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        squared_difference(numpy.arange(1, 4), numpy.arange(1, 4))


def test_unbroadcastable_shapes_are_invalid():
    msg = re.escape('Invalid operation is performed in: SquaredDifference (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        squared_difference(numpy.ones((2, 3)), numpy.ones((2,)))
