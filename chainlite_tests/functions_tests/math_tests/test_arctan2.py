"""arctan2: NumPy forward, gradients to second order, broadcasting, dtypes, bad inputs."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.arctan2 import arctan2
from chainlite.utils import type_check

# Equal shapes (Chainer's case) and broadcasting ones (an addition of chainlite).
SHAPE_PAIRS = [((), ()), ((3,), (3,)), ((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)),
               ((), (2, 3))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _inputs(sa, sb, dtype=numpy.float64):
    # arctan2 is singular at the origin and jumps across the negative x2 axis: |x1| and
    # |x2| in [0.5, 2] keep every point away from both.
    rs = numpy.random.RandomState(0)

    def draw(shape):
        return numpy.asarray(rs.uniform(0.5, 2, shape) * rs.choice([-1, 1], shape)).astype(dtype)
    return draw(sa), draw(sb)


def _gy(shape, seed):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


def _ref(a, b):
    return numpy.arctan2(a, b)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_forward(shapes, dtype):
    a, b = _inputs(*shapes, dtype=dtype)
    y = arctan2(chainlite.Variable(a), chainlite.Variable(b))
    expected = _ref(a.astype(numpy.float64), b.astype(numpy.float64))
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_backward(shapes):
    a, b = _inputs(*shapes)
    gy = _gy(numpy.broadcast_shapes(*shapes), 2)
    gradient_check.check_backward(arctan2, (a, b), (gy,))


@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_double_backward(shapes):
    a, b = _inputs(*shapes)
    gy = _gy(numpy.broadcast_shapes(*shapes), 2)
    gradient_check.check_double_backward(arctan2, (a, b), (gy,),
                                         (_gy(shapes[0], 3), _gy(shapes[1], 4)))


def test_float32_in_float32_out():
    a, b = _inputs((2, 3), (3,), dtype=numpy.float32)
    va, vb = chainlite.Variable(a), chainlite.Variable(b)
    y = arctan2(va, vb)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert va.grad.dtype == numpy.float32
    assert vb.grad.dtype == numpy.float32
    assert va.grad.shape == (2, 3)
    assert vb.grad.shape == (3,)
    a, b = a.astype(numpy.float64), b.astype(numpy.float64)
    numpy.testing.assert_allclose(va.grad, b / (a * a + b * b), rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(vb.grad, (-a / (a * a + b * b)).sum(axis=0), rtol=1e-5, atol=1e-6)


def test_arrays_and_variables_mix():
    a, b = _inputs((2, 3), (2, 3))
    for lhs, rhs in ((a, b), (chainlite.Variable(a), b), (a, chainlite.Variable(b))):
        y = arctan2(lhs, rhs)
        assert isinstance(y, chainlite.Variable)
        numpy.testing.assert_allclose(y.array, _ref(a, b))


def test_mismatched_dtypes_are_invalid():
    msg = re.escape('Invalid operation is performed in: arctan2 (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        arctan2(numpy.ones(3, numpy.float32), numpy.ones(3, numpy.float64))


def test_integer_inputs_are_invalid():
    msg = re.escape('Invalid operation is performed in: arctan2 (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        arctan2(numpy.arange(1, 4), numpy.arange(1, 4))


def test_unbroadcastable_shapes_are_invalid():
    msg = re.escape('Invalid operation is performed in: arctan2 (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        arctan2(numpy.ones((2, 3)), numpy.ones((2,)))


def test_known_values():
    y = arctan2(numpy.array([0.0, 1.0, 1.0, -1.0, 0.0]), numpy.array([1.0, 0.0, -1.0, -1.0, -1.0]))
    numpy.testing.assert_allclose(
        y.array, [0.0, numpy.pi / 2, 3 * numpy.pi / 4, -3 * numpy.pi / 4, numpy.pi])
