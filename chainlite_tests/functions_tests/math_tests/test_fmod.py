"""fmod: NumPy forward, gradients to second order, broadcasting, dtypes, bad inputs."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.fmod import fmod
from chainlite.utils import type_check

# Equal shapes (Chainer's case) and broadcasting ones (an addition of chainlite).
SHAPE_PAIRS = [((), ()), ((3,), (3,)), ((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)),
               ((), (2, 3))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _inputs(sa, sb, dtype=numpy.float64):
    # fmod jumps where x / divisor is an integer: pick the first seed whose quotients all
    # stay 0.1 away from integers, and divisors away from 0, so finite differences and
    # float16 rounding see a smooth function.
    for seed in range(100):
        rs = numpy.random.RandomState(seed)
        a = rs.uniform(-5, 5, sa).astype(dtype)
        b = numpy.asarray(rs.uniform(0.5, 2, sb) * rs.choice([-1, 1], sb)).astype(dtype)
        q = a.astype(numpy.float64) / b.astype(numpy.float64)
        if numpy.all(numpy.abs(q - numpy.round(q)) > 0.1):
            return a, b
    raise AssertionError('no seed found')


def _gy(shape, seed):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


def _ref(a, b):
    return numpy.fmod(a, b)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_forward(shapes, dtype):
    a, b = _inputs(*shapes, dtype=dtype)
    y = fmod(chainlite.Variable(a), chainlite.Variable(b))
    expected = _ref(a.astype(numpy.float64), b.astype(numpy.float64))
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_backward(shapes):
    a, b = _inputs(*shapes)
    gy = _gy(numpy.broadcast_shapes(*shapes), 2)
    gradient_check.check_backward(fmod, (a, b), (gy,))


@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
def test_double_backward(shapes):
    a, b = _inputs(*shapes)
    gy = _gy(numpy.broadcast_shapes(*shapes), 2)
    gradient_check.check_double_backward(fmod, (a, b), (gy,),
                                         (_gy(shapes[0], 3), _gy(shapes[1], 4)))


def test_float32_in_float32_out():
    a, b = _inputs((2, 3), (3,), dtype=numpy.float32)
    va, vb = chainlite.Variable(a), chainlite.Variable(b)
    y = fmod(va, vb)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert va.grad.dtype == numpy.float32
    assert vb.grad.dtype == numpy.float32
    assert va.grad.shape == (2, 3)
    assert vb.grad.shape == (3,)
    a, b = a.astype(numpy.float64), b.astype(numpy.float64)
    numpy.testing.assert_allclose(va.grad, numpy.ones_like(a), rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(vb.grad, (-numpy.fix(a / b) * numpy.ones((2, 3))).sum(axis=0),
                                  rtol=1e-5, atol=1e-6)


def test_arrays_and_variables_mix():
    a, b = _inputs((2, 3), (2, 3))
    for lhs, rhs in ((a, b), (chainlite.Variable(a), b), (a, chainlite.Variable(b))):
        y = fmod(lhs, rhs)
        assert isinstance(y, chainlite.Variable)
        numpy.testing.assert_allclose(y.array, _ref(a, b))


def test_mismatched_dtypes_are_invalid():
    msg = re.escape('Invalid operation is performed in: fmod (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        fmod(numpy.ones(3, numpy.float32), numpy.ones(3, numpy.float64))


def test_integer_inputs_are_invalid():
    msg = re.escape('Invalid operation is performed in: fmod (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        fmod(numpy.arange(1, 4), numpy.arange(1, 4))


def test_unbroadcastable_shapes_are_invalid():
    msg = re.escape('Invalid operation is performed in: fmod (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        fmod(numpy.ones((2, 3)), numpy.ones((2,)))


def test_known_values():
    y = fmod(numpy.array([5.5, -5.5, 5.5, -5.5, 1.0]), numpy.array([2.0, 2.0, -2.0, -2.0, 3.0]))
    numpy.testing.assert_array_equal(y.array, [1.5, -1.5, 1.5, -1.5, 1.0])


def test_divisor_gradient_is_minus_the_truncated_quotient():
    x = chainlite.Variable(numpy.array([5.5, -5.5, 7.0]))
    d = chainlite.Variable(numpy.array([2.0, 2.0, -3.0]))
    y = fmod(x, d)
    y.grad = numpy.ones(3)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [1.0, 1.0, 1.0])
    numpy.testing.assert_array_equal(d.grad, [-2.0, 2.0, 2.0])
