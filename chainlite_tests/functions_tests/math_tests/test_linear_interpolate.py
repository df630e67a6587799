"""linear_interpolate: forward, gradients to second order, broadcasting, dtypes, bad inputs."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.linear_interpolate import linear_interpolate
from chainlite.utils import type_check

# Equal shapes (Chainer's case) and broadcasting ones (an addition of chainlite).
SHAPES = [((), (), ()), ((3,), (3,), (3,)), ((2, 3), (2, 3), (2, 3)), ((2, 3), (3,), ()),
          ((2, 1), (1, 3), (2, 3)), ((), (2, 3), (3,))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _inputs(shapes, dtype=numpy.float64):
    # A polynomial, smooth everywhere: any values will do (p need not lie in [0, 1]).
    return tuple(numpy.random.RandomState(i).uniform(-1, 1, s).astype(dtype)
                 for i, s in enumerate(shapes))


def _ref(p, x, y):
    return p * x + (1 - p) * y


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes', SHAPES)
def test_forward(shapes, dtype):
    p, x, y = _inputs(shapes, dtype)
    z = linear_interpolate(chainlite.Variable(p), chainlite.Variable(x), chainlite.Variable(y))
    expected = _ref(*[a.astype(numpy.float64) for a in (p, x, y)])
    assert z.shape == expected.shape
    assert z.dtype == dtype
    numpy.testing.assert_allclose(z.array, expected, **TOL[dtype])


def test_endpoints():
    x, y = numpy.array([1.5, -2.0]), numpy.array([3.0, 7.0])
    numpy.testing.assert_array_equal(linear_interpolate(numpy.ones(2), x, y).array, x)
    numpy.testing.assert_array_equal(linear_interpolate(numpy.zeros(2), x, y).array, y)


@pytest.mark.parametrize('shapes', SHAPES)
def test_backward(shapes):
    gz = numpy.random.RandomState(3).uniform(-1, 1, numpy.broadcast_shapes(*shapes))
    gradient_check.check_backward(linear_interpolate, _inputs(shapes), (gz,))


@pytest.mark.parametrize('shapes', SHAPES)
def test_double_backward(shapes):
    gz = numpy.random.RandomState(3).uniform(-1, 1, numpy.broadcast_shapes(*shapes))
    ggs = tuple(numpy.random.RandomState(4 + i).uniform(-1, 1, s) for i, s in enumerate(shapes))
    gradient_check.check_double_backward(linear_interpolate, _inputs(shapes), (gz,), ggs)


def test_float32_in_float32_out():
    p, x, y = (chainlite.Variable(a) for a in _inputs(((2, 3), (2, 3), (3,)), numpy.float32))
    z = linear_interpolate(p, x, y)
    assert z.dtype == numpy.float32
    z.grad = numpy.ones_like(z.array)
    z.backward()
    for v in (p, x, y):
        assert v.grad.dtype == numpy.float32
        assert v.grad.shape == v.shape
    numpy.testing.assert_allclose(p.grad, x.array - y.array, rtol=1e-6)
    numpy.testing.assert_allclose(x.grad, p.array, rtol=1e-6)
    numpy.testing.assert_allclose(y.grad, (1 - p.array).sum(axis=0), rtol=1e-6)


def test_arrays_and_variables_mix():
    p, x, y = _inputs(((2, 3),) * 3)
    for args in ((p, x, y), (chainlite.Variable(p), x, y), (p, x, chainlite.Variable(y))):
        z = linear_interpolate(*args)
        assert isinstance(z, chainlite.Variable)
        numpy.testing.assert_allclose(z.array, _ref(p, x, y))


MSG = re.escape('Invalid operation is performed in: LinearInterpolate (Forward)')


def test_mismatched_dtypes_are_invalid():
    with pytest.raises(type_check.InvalidType, match=MSG):
        linear_interpolate(numpy.ones(3), numpy.ones(3), numpy.ones(3, numpy.float32))


def test_integer_inputs_are_invalid():
    with pytest.raises(type_check.InvalidType, match=MSG):
        linear_interpolate(numpy.ones(3, numpy.int32), numpy.ones(3, numpy.int32),
                           numpy.ones(3, numpy.int32))


def test_unbroadcastable_shapes_are_invalid():
    with pytest.raises(type_check.InvalidType, match=MSG):
        linear_interpolate(numpy.ones((2, 3)), numpy.ones((2, 3)), numpy.ones((2,)))
