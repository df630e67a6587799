"""sigmoid: forward against NumPy, gradients to third order through the fused node, dtypes."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.activation import sigmoid as sigmoid_module
from chainlite.functions.activation.sigmoid import sigmoid
from chainlite.utils import type_check

SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-3, 'rtol': 1e-3},
       numpy.float32: {'atol': 1e-7, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-15, 'rtol': 1e-14}}


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Smooth everywhere; [-3, 3] stays off the flat tails where gradients are tiny.
    return numpy.random.RandomState(seed).uniform(-3, 3, shape).astype(dtype)


def _expected(x):
    return 1 / (1 + numpy.exp(-x.astype(numpy.float64)))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    x = _uniform(shape, dtype)
    y = sigmoid(chainlite.Variable(x))
    assert y.shape == shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _expected(x), **TOL[dtype])


@pytest.mark.parametrize('dtype', DTYPES)
def test_large_inputs_are_stable(dtype):
    with numpy.errstate(all='raise'):
        y = sigmoid(numpy.array([-1000.0, 1000.0], dtype))
    numpy.testing.assert_array_equal(y.array, [0.0, 1.0])


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    gradient_check.check_backward(sigmoid, (_uniform(shape),), (_uniform(shape, seed=1),))


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    gradient_check.check_double_backward(
        sigmoid, (_uniform(shape),), (_uniform(shape, seed=1),), (_uniform(shape, seed=2),))


def test_third_order_through_the_fused_gradient():
    x = chainlite.Variable(numpy.array([0.3, -1.1]))
    y = sigmoid(x)
    g1, = chainlite.grad([y], [x], [chainlite.Variable(numpy.ones(2))],
                         enable_double_backprop=True)
    assert isinstance(g1.creator, sigmoid_module._SigmoidGrad)
    g2, = chainlite.grad([g1], [x], [numpy.ones(2)], enable_double_backprop=True)
    g3, = chainlite.grad([g2], [x], [numpy.ones(2)])
    s = _expected(x.array)
    numpy.testing.assert_allclose(g1.array, s * (1 - s))
    numpy.testing.assert_allclose(g2.array, s * (1 - s) * (1 - 2 * s))
    numpy.testing.assert_allclose(g3.array, s * (1 - s) * (1 - 6 * s + 6 * s * s))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = sigmoid(x)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    s = _expected(x.array)
    numpy.testing.assert_allclose(x.grad, s * (1 - s), rtol=1e-5, atol=1e-6)


def test_array_input():
    x = _uniform((2, 3))
    y = sigmoid(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, _expected(x))


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: Sigmoid (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        sigmoid(numpy.zeros((2, 3), dtype))
