"""polygamma: forward against SciPy, gradients (in x) to second order, dtypes, bad inputs."""
import re

import numpy
import pytest
from scipy import special

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.polygamma import polygamma
from chainlite.utils import type_check

# (n shape, x shape): broadcasting both ways.
SHAPES = [((), ()), ((), (3,)), ((3,), (3,)), ((2, 3), (3,)), ((3,), (2, 3))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _orders(shape, seed=0):
    return numpy.asarray(numpy.random.RandomState(seed).randint(0, 4, shape))


def _uniform(shape, dtype=numpy.float64, seed=0, low=0.5, high=3.0):
    # Poles at 0 and the negative integers: x stays in [0.5, 3].
    return numpy.random.RandomState(seed).uniform(low, high, shape).astype(dtype)


def _out_shape(n_shape, x_shape):
    return numpy.broadcast_shapes(n_shape, x_shape)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('n_shape, x_shape', SHAPES)
def test_forward(n_shape, x_shape, dtype):
    n, x = _orders(n_shape), _uniform(x_shape, dtype)
    y = polygamma(chainlite.Variable(n), chainlite.Variable(x))
    expected = special.polygamma(n, x.astype(numpy.float64))
    assert y.shape == _out_shape(n_shape, x_shape)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


def test_known_values():
    y = polygamma(numpy.array([0, 1, 2]), numpy.array([1.0, 1.0, 1.0]))
    # -gamma, pi^2 / 6, -2 zeta(3)
    numpy.testing.assert_allclose(y.array, [-0.5772156649015329, numpy.pi ** 2 / 6,
                                            -2 * 1.2020569031595942], rtol=1e-12)


@pytest.mark.parametrize('n_shape, x_shape', SHAPES)
def test_backward(n_shape, x_shape):
    n, x = _orders(n_shape), _uniform(x_shape)
    gy = _uniform(_out_shape(n_shape, x_shape), seed=1, low=-1, high=1)
    # n is an integer input: check_backward leaves it out (its gradient must stay None).
    gradient_check.check_backward(polygamma, (n, x), gy)


@pytest.mark.parametrize('n_shape, x_shape', SHAPES)
def test_double_backward(n_shape, x_shape):
    n, x = _orders(n_shape), _uniform(x_shape)
    gy = _uniform(_out_shape(n_shape, x_shape), seed=1, low=-1, high=1)
    gradient_check.check_double_backward(polygamma, (n, x), gy,
                                         (_uniform(x_shape, seed=2, low=-1, high=1),))


def test_gradient_is_the_next_order():
    n, x = numpy.array([0, 1, 2]), _uniform((3,))
    v = chainlite.Variable(x)
    y = polygamma(n, v)
    y.grad = numpy.ones(3)
    y.backward()
    numpy.testing.assert_allclose(v.grad, special.polygamma(n + 1, x), rtol=1e-12)


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = polygamma(numpy.array(1, numpy.int32), x)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_array_inputs():
    y = polygamma(_orders((3,)), _uniform((3,)))
    assert isinstance(y, chainlite.Variable)


@pytest.mark.parametrize('n_dtype, x_dtype', [(numpy.float64, numpy.float64),
                                              (numpy.int64, numpy.int64),
                                              (numpy.bool_, numpy.float64)])
def test_wrong_dtypes_are_invalid(n_dtype, x_dtype):
    msg = re.escape('Invalid operation is performed in: polygamma (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        polygamma(numpy.ones(3, n_dtype), numpy.ones(3, x_dtype))


def test_shapes_that_do_not_broadcast_are_invalid():
    msg = re.escape('Invalid operation is performed in: polygamma (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        polygamma(_orders((2,)), _uniform((3,)))
