"""softmax: forward against NumPy over several axes, stability, gradients to second order."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.activation import softmax as softmax_module
from chainlite.functions.activation.softmax import softmax
from chainlite.utils import type_check

# (shape, axis); softmax needs an axis, so () is not allowed (tested below).
CASES = [((3,), 0), ((3,), -1), ((2, 3), 1), ((2, 3), 0), ((2, 3, 4), 1), ((2, 3, 4), -1),
         ((2, 3, 4), 0)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 2e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-7, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-15, 'rtol': 1e-14}}


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Smooth everywhere; any values will do.
    return numpy.random.RandomState(seed).uniform(-2, 2, shape).astype(dtype)


def _expected(x, axis):
    e = numpy.exp(x.astype(numpy.float64))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, axis', CASES)
def test_forward(shape, axis, dtype):
    x = _uniform(shape, dtype)
    y = softmax(chainlite.Variable(x), axis=axis)
    assert y.shape == shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _expected(x, axis), **TOL[dtype])


def test_default_axis_is_1():
    x = _uniform((2, 3, 4))
    numpy.testing.assert_allclose(softmax(x).array, _expected(x, 1))


@pytest.mark.parametrize('dtype', DTYPES)
def test_large_inputs_are_stable(dtype):
    x = numpy.array([[1000.0, 0.0], [-1000.0, -1000.0]], dtype)
    with numpy.errstate(over='raise', invalid='raise', divide='raise'):
        y = softmax(x)
    numpy.testing.assert_array_equal(y.array, [[1.0, 0.0], [0.5, 0.5]])


@pytest.mark.parametrize('shape, axis', CASES)
def test_backward(shape, axis):
    gradient_check.check_backward(lambda x: softmax(x, axis), (_uniform(shape),),
                                  (_uniform(shape, seed=1),))


@pytest.mark.parametrize('shape, axis', CASES)
def test_double_backward(shape, axis):
    gradient_check.check_double_backward(
        lambda x: softmax(x, axis), (_uniform(shape),), (_uniform(shape, seed=1),),
        (_uniform(shape, seed=2),))


def test_gradient_is_one_fused_node():
    x = chainlite.Variable(_uniform((2, 3)))
    gy = chainlite.Variable(_uniform((2, 3), seed=1))
    gx, = chainlite.grad([softmax(x)], [x], [gy], enable_double_backprop=True)
    assert isinstance(gx.creator, softmax_module._SoftmaxGrad)
    y = _expected(x.array, 1)
    expected = y * (gy.array - (gy.array * y).sum(axis=1, keepdims=True))
    numpy.testing.assert_allclose(gx.array, expected, rtol=1e-12)


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = softmax(x)
    assert y.dtype == numpy.float32
    y.grad = _uniform((2, 3), numpy.float32, seed=1)
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_array_input():
    x = _uniform((2, 3))
    y = softmax(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, _expected(x, 1))


@pytest.mark.parametrize('shape, axis', [((), 0), ((3,), 1), ((2, 3), -3), ((2, 3), 2)])
def test_axis_out_of_range_is_invalid(shape, axis):
    msg = re.escape('Invalid operation is performed in: Softmax (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        softmax(numpy.zeros(shape), axis)


def test_non_integer_axis_is_a_type_error():
    with pytest.raises(TypeError, match='axis'):
        softmax(numpy.zeros((2, 3)), 1.0)


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: Softmax (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        softmax(numpy.zeros((2, 3), dtype))
