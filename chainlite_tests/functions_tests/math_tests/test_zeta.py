"""zeta: forward against SciPy, gradients in q to second order, dtypes and bad inputs."""
import re

import numpy
import pytest
from scipy import special

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.zeta import zeta
from chainlite.utils import type_check

# (x shape, q shape): broadcasting both ways.
SHAPES = [((), ()), ((3,), (3,)), ((), (2, 3)), ((2, 3), (3,)), ((3,), (2, 3))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _uniform(shape, low, high, dtype=numpy.float64, seed=0):
    return numpy.random.RandomState(seed).uniform(low, high, shape).astype(dtype)


def _inputs(x_shape, q_shape, dtype=numpy.float64):
    # The series converges for x > 1 and q > 0; both stay clear of those edges.
    return _uniform(x_shape, 1.5, 3.0, dtype), _uniform(q_shape, 0.5, 2.0, dtype, seed=1)


def _gy(x_shape, q_shape):
    return _uniform(numpy.broadcast_shapes(x_shape, q_shape), -1, 1, seed=2)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('x_shape, q_shape', SHAPES)
def test_forward(x_shape, q_shape, dtype):
    x, q = _inputs(x_shape, q_shape, dtype)
    y = zeta(chainlite.Variable(x), chainlite.Variable(q))
    expected = special.zeta(x.astype(numpy.float64), q.astype(numpy.float64))
    assert y.shape == numpy.broadcast_shapes(x_shape, q_shape)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


def test_known_values():
    y = zeta(numpy.array([2.0, 4.0, 2.0]), numpy.array([1.0, 1.0, 2.0]))
    numpy.testing.assert_allclose(y.array, [numpy.pi ** 2 / 6, numpy.pi ** 4 / 90,
                                            numpy.pi ** 2 / 6 - 1], rtol=1e-12)


@pytest.mark.parametrize('x_shape, q_shape', SHAPES)
def test_backward(x_shape, q_shape):
    # Only q is differentiable: x's gradient must stay None.
    gradient_check.check_backward(zeta, _inputs(x_shape, q_shape), _gy(x_shape, q_shape),
                                  no_grads=[True, False])


@pytest.mark.parametrize('x_shape, q_shape', SHAPES)
def test_double_backward(x_shape, q_shape):
    ggx = (_uniform(x_shape, -1, 1, seed=3), _uniform(q_shape, -1, 1, seed=4))
    gradient_check.check_double_backward(zeta, _inputs(x_shape, q_shape),
                                         _gy(x_shape, q_shape), ggx, no_grads=[True, False])


def test_gradient_in_q_and_none_in_x():
    x, q = chainlite.Variable(numpy.array([2.0, 3.0])), chainlite.Variable(numpy.array([1.0, 2.0]))
    y = zeta(x, q)
    y.grad = numpy.ones(2)
    y.backward()
    assert x.grad is None
    numpy.testing.assert_allclose(q.grad, -x.array * special.zeta(x.array + 1, q.array),
                                  rtol=1e-12)


def test_float32_in_float32_out():
    x, q = _inputs((2, 3), (2, 3), numpy.float32)
    q = chainlite.Variable(q)
    y = zeta(x, q)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert q.grad.dtype == numpy.float32


def test_array_inputs():
    assert isinstance(zeta(*_inputs((3,), (3,))), chainlite.Variable)


@pytest.mark.parametrize('x_dtype, q_dtype', [(numpy.float32, numpy.float64),
                                              (numpy.int64, numpy.int64),
                                              (numpy.float64, numpy.int32)])
def test_wrong_dtypes_are_invalid(x_dtype, q_dtype):
    msg = re.escape('Invalid operation is performed in: zeta (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        zeta(numpy.full(3, 2, x_dtype), numpy.ones(3, q_dtype))


def test_shapes_that_do_not_broadcast_are_invalid():
    msg = re.escape('Invalid operation is performed in: zeta (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        zeta(*_inputs((2,), (3,)))
