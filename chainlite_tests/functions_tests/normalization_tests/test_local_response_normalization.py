"""local_response_normalization: a window of neighbouring channels normalizes each one."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.normalization.local_response_normalization import (
    local_response_normalization)
from chainlite.utils import type_check

SHAPES = [(2, 7), (2, 3, 2), (1, 6, 2, 3), (2, 1, 2)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 2e-3, 'rtol': 2e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}
# (n, k, alpha, beta): the default, a large alpha so the window matters, an even n.
PARAMS = [(5, 2, 1e-4, 0.75), (3, 1.0, 0.5, 0.75), (4, 2.0, 0.3, 0.5), (1, 1.0, 1.0, 1.0)]


def _x(shape, dtype=numpy.float64, seed=0):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _reference(x, n, k, alpha, beta):
    x = x.astype(numpy.float64)
    half, c = n // 2, x.shape[1]
    y = numpy.empty_like(x)
    for i in range(c):
        s = (x[:, max(0, i - half):min(c, i + half + 1)] ** 2).sum(axis=1)
        y[:, i] = x[:, i] / (k + alpha * s) ** beta
    return y


@pytest.mark.parametrize('params', PARAMS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype, params):
    x = _x(shape, dtype)
    n, k, alpha, beta = params
    y = local_response_normalization(chainlite.Variable(x), n=n, k=k, alpha=alpha, beta=beta)
    assert y.dtype == dtype and y.shape == shape
    numpy.testing.assert_allclose(y.array, _reference(x, *params), **TOL[dtype])


def test_default_arguments():
    x = _x((2, 7))
    numpy.testing.assert_allclose(local_response_normalization(x).array,
                                  _reference(x, 5, 2, 1e-4, 0.75))


# k > 0 keeps the base of the power positive: the function is smooth everywhere.
@pytest.mark.parametrize('params', PARAMS)
@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape, params):
    x = _x(shape)
    gy = _x(shape, seed=1)
    gradient_check.check_backward(lambda x: local_response_normalization(x, *params), x, gy)


@pytest.mark.parametrize('params', PARAMS)
@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape, params):
    x = _x(shape)
    gy, ggx = _x(shape, seed=1), _x(shape, seed=2)
    gradient_check.check_double_backward(
        lambda x: local_response_normalization(x, *params), x, gy, ggx, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_dtype_kept_in_forward_and_backward(dtype):
    x = chainlite.Variable(_x((2, 6, 2), dtype))
    y = local_response_normalization(x, alpha=0.5)
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == dtype


def test_array_input():
    x = _x((2, 6))
    y = local_response_normalization(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array,
                                     local_response_normalization(chainlite.Variable(x)).array)


MSG = re.escape('Invalid operation is performed in: LocalResponseNormalization (Forward)')


@pytest.mark.parametrize('x', [numpy.ones((2, 3), numpy.int32), numpy.ones(3), numpy.array(1.0)])
def test_invalid_inputs(x):
    with pytest.raises(type_check.InvalidType, match=MSG):
        local_response_normalization(x)
