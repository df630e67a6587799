"""minimum: NumPy forward, gradients to second order, broadcasting, dtypes, bad inputs."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.minimum import minimum
from chainlite.utils import type_check

# Equal shapes and broadcasting ones (Chainer 7 broadcasts maximum and minimum too).
SHAPE_PAIRS = [((), ()), ((3,), (3,)), ((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)),
               ((), (2, 3))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _inputs(sa, sb, dtype=numpy.float64):
    # minimum has a kink where the inputs tie: x1 on odd multiples of 1 / 16, x2 on even
    # ones, so no pair is closer than 1 / 16 (exact in float16 too).
    rs = numpy.random.RandomState(0)
    a = numpy.asarray((2 * rs.randint(-16, 16, sa) + 1) / 16).astype(dtype)
    b = numpy.asarray(2 * rs.randint(-16, 16, sb) / 16).astype(dtype)
    return a, b


def _gy(shape, seed):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


def _ref(a, b):
    return numpy.minimum(a, b)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_forward(shapes, dtype):
    a, b = _inputs(*shapes, dtype=dtype)
    y = minimum(chainlite.Variable(a), chainlite.Variable(b))
    expected = _ref(a.astype(numpy.float64), b.astype(numpy.float64))
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_backward(shapes):
    a, b = _inputs(*shapes)
    gy = _gy(numpy.broadcast_shapes(*shapes), 2)
    gradient_check.check_backward(minimum, (a, b), (gy,))


@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_double_backward(shapes):
    a, b = _inputs(*shapes)
    gy = _gy(numpy.broadcast_shapes(*shapes), 2)
    gradient_check.check_double_backward(minimum, (a, b), (gy,),
                                         (_gy(shapes[0], 3), _gy(shapes[1], 4)))


def test_float32_in_float32_out():
    a, b = _inputs((2, 3), (3,), dtype=numpy.float32)
    va, vb = chainlite.Variable(a), chainlite.Variable(b)
    y = minimum(va, vb)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert va.grad.dtype == numpy.float32
    assert vb.grad.dtype == numpy.float32
    assert va.grad.shape == (2, 3)
    assert vb.grad.shape == (3,)
    a, b = a.astype(numpy.float64), b.astype(numpy.float64)
    numpy.testing.assert_allclose(va.grad, (a <= b) * 1.0, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(vb.grad, ((a > b) * numpy.ones((2, 3))).sum(axis=0),
                                  rtol=1e-5, atol=1e-6)


def test_arrays_and_variables_mix():
    a, b = _inputs((2, 3), (2, 3))
    for lhs, rhs in ((a, b), (chainlite.Variable(a), b), (a, chainlite.Variable(b))):
        y = minimum(lhs, rhs)
        assert isinstance(y, chainlite.Variable)
        numpy.testing.assert_allclose(y.array, _ref(a, b))


def test_mismatched_dtypes_are_invalid():
    msg = re.escape('Invalid operation is performed in: Minimum (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        minimum(numpy.ones(3, numpy.float32), numpy.ones(3, numpy.float64))


def test_integer_inputs_are_invalid():
    msg = re.escape('Invalid operation is performed in: Minimum (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        minimum(numpy.arange(1, 4), numpy.arange(1, 4))


def test_unbroadcastable_shapes_are_invalid():
    msg = re.escape('Invalid operation is performed in: Minimum (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        minimum(numpy.ones((2, 3)), numpy.ones((2,)))


def test_ties_send_the_gradient_to_x1():
    a = chainlite.Variable(numpy.array([1.0, 2.0, 3.0]))
    b = chainlite.Variable(numpy.array([1.0, 0.0, 5.0]))
    y = minimum(a, b)
    y.grad = numpy.ones(3)
    y.backward()
    numpy.testing.assert_array_equal(a.grad, [1.0, 0.0, 1.0])
    numpy.testing.assert_array_equal(b.grad, [0.0, 1.0, 0.0])
