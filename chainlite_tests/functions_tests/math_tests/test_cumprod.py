"""cumprod: forward against NumPy, gradients to second order (with zeros too), errors."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.cumprod import cumprod
from chainlite.utils import type_check

CASES = [((), None), ((3,), None), ((3,), 0), ((3,), -1), ((2, 3), None), ((2, 3), 1),
         ((2, 3), -2), ((2, 3, 4), 1), ((2, 3, 4), numpy.int64(2))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _uniform(shape, dtype=numpy.float64, seed=0):
    # |x| in [0.5, 1.5], both signs: products stay moderate and away from 0 unless a test
    # puts zeros in on purpose.
    r = numpy.random.RandomState(seed)
    return numpy.asarray(r.uniform(0.5, 1.5, shape) * r.choice([-1, 1], shape), dtype)


def _gy(x, axis):
    return numpy.random.RandomState(1).uniform(-1, 1, numpy.cumprod(x, axis=axis).shape)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, axis', CASES)
def test_forward(shape, axis, dtype):
    x = _uniform(shape, dtype)
    y = cumprod(chainlite.Variable(x), axis=axis)
    expected = numpy.cumprod(x.astype(numpy.float64), axis=axis)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('shape, axis', CASES)
def test_backward(shape, axis):
    x = _uniform(shape)
    gradient_check.check_backward(lambda x: cumprod(x, axis), x, _gy(x, axis))


@pytest.mark.parametrize('shape, axis', CASES)
def test_double_backward(shape, axis):
    x = _uniform(shape)
    gradient_check.check_double_backward(lambda x: cumprod(x, axis), x, _gy(x, axis),
                                         _uniform(shape, seed=2))


@pytest.mark.parametrize('axis, zeros', [(None, (4,)), (1, (1, 6)), (2, (0, 6, 11, 23))])
def test_gradients_with_one_zero_per_slice(axis, zeros):
    # The backward never divides by a zero: exact to second order with one zero per slice.
    x = _uniform((2, 3, 4))
    x.flat[list(zeros)] = 0
    gradient_check.check_backward(lambda x: cumprod(x, axis), x, _gy(x, axis))
    gradient_check.check_double_backward(lambda x: cumprod(x, axis), x, _gy(x, axis),
                                         _uniform(x.shape, seed=2))


def test_first_order_gradient_with_several_zeros():
    x = _uniform((2, 5))
    x[0, [1, 3]] = 0
    x[1, [0, 1, 4]] = 0
    gradient_check.check_backward(lambda x: cumprod(x, 1), x, _gy(x, 1))


def test_known_gradient_with_a_zero():
    x = chainlite.Variable(numpy.array([2.0, 0.0, 3.0]))
    y = cumprod(x)
    y.grad = numpy.ones(3)
    y.backward()
    # d/dx0 (x0 + x0 x1 + x0 x1 x2) = 1 + x1 + x1 x2; d/dx1 = x0 + x0 x2; d/dx2 = x0 x1.
    numpy.testing.assert_array_equal(x.grad, [1.0, 8.0, 0.0])


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = cumprod(x, axis=0)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_array_input():
    x = _uniform((2, 3))
    y = cumprod(x, 1)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, numpy.cumprod(x, 1))


@pytest.mark.parametrize('shape, axis', [((2, 3), 2), ((2, 3), -3), ((), 0)])
def test_axis_out_of_range_is_invalid(shape, axis):
    msg = re.escape('Invalid operation is performed in: Cumprod (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        cumprod(numpy.zeros(shape), axis=axis)


@pytest.mark.parametrize('axis', [(0,), (0, 1), 1.0])
def test_non_int_axis_is_a_type_error(axis):
    with pytest.raises(TypeError, match='Cumprod'):
        cumprod(numpy.zeros((2, 3)), axis=axis)


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: Cumprod (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        cumprod(numpy.ones((2, 3), dtype))
