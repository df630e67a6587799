"""relu: forward against NumPy, gradients to second order through the fused mask node."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.activation import relu as relu_module
from chainlite.functions.activation.relu import relu
from chainlite.utils import type_check

SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _away_from_zero(shape, dtype=numpy.float64, seed=0):
    # relu has a kink at 0: |x| >= 0.1 keeps finite differences (eps 1e-3) on one side.
    rng = numpy.random.RandomState(seed)
    x = rng.uniform(0.1, 1, shape) * rng.choice([-1, 1], shape)
    return numpy.asarray(x).astype(dtype)


def _uniform(shape, seed):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    x = _away_from_zero(shape, dtype)
    y = relu(chainlite.Variable(x))
    assert y.shape == shape
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, numpy.maximum(x, 0))


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    gradient_check.check_backward(relu, (_away_from_zero(shape),), (_uniform(shape, 1),))


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    gradient_check.check_double_backward(
        relu, (_away_from_zero(shape),), (_uniform(shape, 1),), (_uniform(shape, 2),))


def test_gradient_is_one_fused_node():
    x = chainlite.Variable(numpy.array([-1.0, 2.0, 0.0]))
    gy = chainlite.Variable(numpy.ones(3))
    gx, = chainlite.grad([relu(x)], [x], [gy], enable_double_backprop=True)
    # One node, and the gradient at 0 is 0 (as in Chainer).
    assert isinstance(gx.creator, relu_module._ReLUGrad)
    numpy.testing.assert_array_equal(gx.array, [0.0, 1.0, 0.0])


def test_float32_in_float32_out():
    x = chainlite.Variable(_away_from_zero((2, 3), numpy.float32))
    y = relu(x)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    numpy.testing.assert_array_equal(x.grad, (x.array > 0).astype(numpy.float32))


def test_array_input():
    x = _away_from_zero((2, 3))
    y = relu(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, numpy.maximum(x, 0))


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: ReLU (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        relu(numpy.zeros((2, 3), dtype))
