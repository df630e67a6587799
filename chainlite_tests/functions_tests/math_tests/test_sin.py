"""F.sin: forward against NumPy, gradients to second order, dtypes and bad inputs."""
import re

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import gradient_check
from chainlite.utils import type_check

SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _uniform(shape, dtype=numpy.float64, seed=0):
    # sin is smooth everywhere: a full period, negative values included.
    return numpy.random.RandomState(seed).uniform(-numpy.pi, numpy.pi, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    x = _uniform(shape, dtype)
    y = F.sin(chainlite.Variable(x))
    assert y.shape == shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, numpy.sin(x.astype(numpy.float64)), **TOL[dtype])


def test_forward_known_values():
    y = F.sin(numpy.array([0.0, numpy.pi / 2, -numpy.pi / 6]))
    numpy.testing.assert_allclose(y.array, [0.0, 1.0, -0.5], atol=1e-15)


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    gradient_check.check_backward(F.sin, (_uniform(shape),), (_uniform(shape, seed=1),))


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    gradient_check.check_double_backward(
        F.sin, (_uniform(shape),), (_uniform(shape, seed=1),), (_uniform(shape, seed=2),))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = F.sin(x)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    numpy.testing.assert_allclose(x.grad, numpy.cos(x.array), rtol=1e-6, atol=1e-7)


def test_array_input():
    x = _uniform((2, 3))
    y = F.sin(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, numpy.sin(x))


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.int64, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: sin (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        F.sin(numpy.zeros((2, 3), dtype))


def _sin_grad_grad(x, gy, g):
    from chainlite.functions.math import sin as sin_module
    return sin_module._SinGradGrad().apply((x, gy, g))[0]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_sin_grad_grad_forward(shape, dtype):
    # The fused node of sin's second derivative is -g * gy * sin(x), in the inputs' dtype.
    x, gy, g = (_uniform(shape, dtype, seed=s) for s in range(3))
    y = _sin_grad_grad(x, gy, g)
    assert y.dtype == dtype and y.shape == shape
    expect = -(g.astype(numpy.float64) * gy * numpy.sin(x.astype(numpy.float64)))
    numpy.testing.assert_allclose(y.array, expect, **TOL[dtype])


@pytest.mark.parametrize('shape', SHAPES)
def test_sin_grad_grad_backward(shape):
    # Third-order derivatives of sin go through this node's backward.
    xs = tuple(_uniform(shape, seed=s) for s in range(3))
    gradient_check.check_backward(_sin_grad_grad, xs, _uniform(shape, seed=3))
    gradient_check.check_double_backward(
        _sin_grad_grad, xs, _uniform(shape, seed=3),
        tuple(_uniform(shape, seed=s) for s in range(4, 7)))


def test_third_derivative():
    x = chainlite.Variable(_uniform((4,)))
    gx, = chainlite.grad([F.sin(x)], [x], enable_double_backprop=True)
    ggx, = chainlite.grad([gx], [x], enable_double_backprop=True)
    gggx, = chainlite.grad([ggx], [x])
    numpy.testing.assert_allclose(ggx.array, -numpy.sin(x.array), rtol=1e-12)
    numpy.testing.assert_allclose(gggx.array, -numpy.cos(x.array), rtol=1e-12)
