"""batch_l2_norm_squared: forward against NumPy, gradients to second order, dtypes, errors."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.batch_l2_norm_squared import batch_l2_norm_squared
from chainlite.utils import type_check

SHAPES = [(1, 1), (3, 4), (2, 3, 4), (0, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _uniform(shape, dtype=numpy.float64, seed=0):
    # A sum of squares is smooth everywhere.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    x = _uniform(shape, dtype)
    y = batch_l2_norm_squared(chainlite.Variable(x))
    expected = (x.astype(numpy.float64) ** 2).sum(axis=tuple(range(1, x.ndim)))
    assert y.shape == (shape[0],)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('shape', SHAPES[:3])
def test_backward(shape):
    gradient_check.check_backward(batch_l2_norm_squared, _uniform(shape),
                                  _uniform(shape[:1], seed=1))


@pytest.mark.parametrize('shape', SHAPES[:3])
def test_double_backward(shape):
    gradient_check.check_double_backward(batch_l2_norm_squared, _uniform(shape),
                                         _uniform(shape[:1], seed=1), _uniform(shape, seed=2))


def test_known_gradient():
    x = chainlite.Variable(numpy.array([[3.0, 4.0], [1.0, 2.0]]))
    y = batch_l2_norm_squared(x)
    y.grad = numpy.array([1.0, 10.0])
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[6.0, 8.0], [20.0, 40.0]])


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = batch_l2_norm_squared(x)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_array_input():
    assert isinstance(batch_l2_norm_squared(_uniform((2, 3))), chainlite.Variable)


@pytest.mark.parametrize('shape', [(), (3,)])
def test_fewer_than_two_dimensions_are_invalid(shape):
    msg = re.escape('Invalid operation is performed in: BatchL2NormSquared (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        batch_l2_norm_squared(numpy.zeros(shape))


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: BatchL2NormSquared (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        batch_l2_norm_squared(numpy.ones((2, 3), dtype))
