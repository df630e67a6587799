"""F.tanh: forward against NumPy, gradients to second order, dtypes and bad inputs."""
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
    # tanh is smooth; [-2, 2] stays off the flat tails where the gradient is tiny and a
    # relative tolerance says little.
    return numpy.random.RandomState(seed).uniform(-2, 2, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    x = _uniform(shape, dtype)
    y = F.tanh(chainlite.Variable(x))
    assert y.shape == shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, numpy.tanh(x.astype(numpy.float64)), **TOL[dtype])


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    gradient_check.check_backward(F.tanh, (_uniform(shape),), (_uniform(shape, seed=1),))


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    gradient_check.check_double_backward(
        F.tanh, (_uniform(shape),), (_uniform(shape, seed=1),), (_uniform(shape, seed=2),))


def test_third_order_through_the_fused_gradient():
    # The fused gradient node differentiates itself again: d3/dx3 tanh = -2 + 8y^2 - 6y^4.
    x = chainlite.Variable(numpy.array([0.3, -1.1]))
    y = F.tanh(x)
    g1, = chainlite.grad([y], [x], [numpy.ones(2)], enable_double_backprop=True)
    g2, = chainlite.grad([g1], [x], [numpy.ones(2)], enable_double_backprop=True)
    g3, = chainlite.grad([g2], [x], [numpy.ones(2)])
    t = numpy.tanh(x.array)
    numpy.testing.assert_allclose(g1.array, 1 - t ** 2)
    numpy.testing.assert_allclose(g2.array, -2 * t * (1 - t ** 2))
    numpy.testing.assert_allclose(g3.array, -2 + 8 * t ** 2 - 6 * t ** 4)


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = F.tanh(x)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    numpy.testing.assert_allclose(x.grad, 1 - numpy.tanh(x.array) ** 2, rtol=1e-5, atol=1e-6)


def test_array_input():
    x = _uniform((2, 3))
    y = F.tanh(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, numpy.tanh(x))


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.int64, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: Tanh (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        F.tanh(numpy.zeros((2, 3), dtype))
