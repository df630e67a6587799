"""average: plain and weighted, against numpy.average; gradients to second order."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.average import average
from chainlite.utils import type_check

# (x shape, axis, weights shape or None)
CASES = [((), None, None), ((), None, ()), ((3,), None, (3,)), ((3,), 0, (3,)),
         ((2, 3), 1, None), ((2, 3), 1, (3,)), ((2, 3), -2, (2,)), ((2, 3), -2, (2, 3)),
         ((2, 3, 4), (0, 2), (2, 3, 4)), ((2, 3, 4), None, (2, 3, 4)),
         ((2, 3, 4), (0, 2), None)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _uniform(shape, dtype=numpy.float64, seed=0, low=-1.0, high=1.0):
    return numpy.random.RandomState(seed).uniform(low, high, shape).astype(dtype)


def _weights(shape, dtype=numpy.float64):
    # Positive weights keep sum(w) away from 0, where the average is singular.
    return None if shape is None else _uniform(shape, dtype, seed=3, low=0.5, high=2.0)


def _expected(x, axis, w, keepdims=False):
    x = x.astype(numpy.float64)
    if w is not None and w.ndim == 1 and x.ndim > 1:
        w = numpy.broadcast_to(w.reshape([-1 if i == axis % x.ndim else 1
                                          for i in range(x.ndim)]), x.shape)
    w = None if w is None else w.astype(numpy.float64)
    avg = numpy.average(x, axis, w, keepdims=keepdims)
    return avg, (numpy.ones_like(x) if w is None else w).sum(axis, keepdims=keepdims)


@pytest.mark.parametrize('keepdims', [False, True])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, axis, w_shape', CASES)
def test_forward(shape, axis, w_shape, dtype, keepdims):
    x, w = _uniform(shape, dtype), _weights(w_shape, dtype)
    y, sw = average(chainlite.Variable(x), axis, w, keepdims, returned=True)
    expected, expected_sw = _expected(x, axis, w, keepdims)
    assert y.shape == sw.shape == expected.shape
    assert y.dtype == sw.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])
    numpy.testing.assert_allclose(sw.array, numpy.broadcast_to(expected_sw, expected.shape),
                                  **TOL[dtype])


@pytest.mark.parametrize('shape, axis, w_shape', CASES)
def test_backward(shape, axis, w_shape):
    x, w = _uniform(shape), _weights(w_shape)
    gy = _uniform(_expected(x, axis, w)[0].shape, seed=1)
    if w is None:
        gradient_check.check_backward(lambda x: average(x, axis), x, gy)
    else:
        # Gradients flow to the weights too.
        gradient_check.check_backward(lambda x, w: average(x, axis, w), (x, w), gy)


@pytest.mark.parametrize('shape, axis, w_shape', CASES)
def test_double_backward(shape, axis, w_shape):
    x, w = _uniform(shape), _weights(w_shape)
    gy = _uniform(_expected(x, axis, w)[0].shape, seed=1)
    if w is None:
        gradient_check.check_double_backward(lambda x: average(x * x, axis), x, gy,
                                             _uniform(shape, seed=2))
    else:
        gradient_check.check_double_backward(lambda x, w: average(x, axis, w), (x, w), gy,
                                             (_uniform(shape, seed=2), _uniform(w_shape, seed=4)))


def test_known_values():
    x = numpy.array([[1.0, 2.0], [3.0, 6.0]])
    numpy.testing.assert_allclose(average(x).array, 3.0)
    numpy.testing.assert_allclose(average(x, 1, numpy.array([3.0, 1.0])).array, [1.25, 3.75])


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    w = chainlite.Variable(_weights((3,), numpy.float32))
    y = average(x, 1, w)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32 and w.grad.dtype == numpy.float32


def test_float64_weights_array_is_cast():
    # As Chainer's operands: an array takes the Variable's dtype.
    x = _uniform((2, 3), numpy.float32)
    assert average(x, 1, _weights((3,))).dtype == numpy.float32


@pytest.mark.parametrize('axis, w_shape', [(None, (3,)), (1, (2,)), ((0, 1), (3,)),
                                           (1, (2, 3, 1))])
def test_weights_of_wrong_shape_are_invalid(axis, w_shape):
    msg = re.escape('Invalid operation is performed in: average (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        average(_uniform((2, 3)), axis, _weights(w_shape))


def test_weights_variable_of_other_dtype_is_invalid():
    msg = re.escape('Invalid operation is performed in: average (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        average(_uniform((2, 3)), 1, chainlite.Variable(_weights((3,), numpy.float32)))


@pytest.mark.parametrize('weights', [None, numpy.ones(3)])
def test_axis_out_of_range_is_invalid(weights):
    msg = re.escape('Invalid operation is performed in: average (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        average(numpy.zeros((2, 3)), 2, weights)


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: average (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        average(numpy.ones((2, 3), dtype))
    with pytest.raises(type_check.InvalidType, match=msg):
        average(numpy.ones((2, 3), dtype), 1, numpy.ones(3))
