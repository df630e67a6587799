"""layer_normalization: per-row statistics, per-unit scale and shift."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.normalization.layer_normalization import layer_normalization
from chainlite.utils import type_check

SHAPES = [(1, 3), (3, 4), (5, 2)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 2e-2, 'rtol': 2e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-4},
       numpy.float64: {'atol': 1e-10, 'rtol': 1e-10}}


def _arrays(shape, dtype=numpy.float64, seed=0):
    rs = numpy.random.RandomState(seed)
    x = rs.uniform(-1, 1, shape).astype(dtype)
    gamma = rs.uniform(0.5, 1.5, shape[1:]).astype(dtype)
    beta = rs.uniform(-1, 1, shape[1:]).astype(dtype)
    return x, gamma, beta


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    x, gamma, beta = _arrays(shape, dtype)
    y = layer_normalization(chainlite.Variable(x), gamma, beta, eps=1e-3)
    x64 = x.astype(numpy.float64)
    mean, var = x64.mean(axis=1, keepdims=True), x64.var(axis=1, keepdims=True)
    expected = gamma * (x64 - mean) / numpy.sqrt(var + 1e-3) + beta
    assert y.dtype == dtype and y.shape == shape
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


def test_default_eps():
    x, gamma, beta = _arrays((2, 3))
    y = layer_normalization(x, gamma, beta)
    expected = gamma * (x - x.mean(1, keepdims=True)) / numpy.sqrt(
        x.var(1, keepdims=True) + 1e-5) + beta
    numpy.testing.assert_allclose(y.array, expected)


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    inputs = _arrays(shape)
    gy = numpy.random.RandomState(1).uniform(-1, 1, shape)
    gradient_check.check_backward(layer_normalization, inputs, gy, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    inputs = _arrays(shape)
    rs = numpy.random.RandomState(1)
    gy = rs.uniform(-1, 1, shape)
    ggs = tuple(rs.uniform(-1, 1, a.shape) for a in inputs)
    gradient_check.check_double_backward(layer_normalization, inputs, gy, ggs,
                                         atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_dtype_kept_in_forward_and_backward(dtype):
    vs = [chainlite.Variable(a) for a in _arrays((3, 4), dtype)]
    y = layer_normalization(*vs)
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert all(v.grad.dtype == dtype for v in vs)


def test_arrays_and_variables_accepted():
    inputs = _arrays((3, 4))
    y1 = layer_normalization(*inputs)
    y2 = layer_normalization(*[chainlite.Variable(a) for a in inputs])
    assert isinstance(y1, chainlite.Variable)
    numpy.testing.assert_array_equal(y1.array, y2.array)


MSG = re.escape('Invalid operation is performed in: LayerNormalization (Forward)')


@pytest.mark.parametrize('x, gamma, beta', [
    (numpy.ones((2, 3), numpy.int32), numpy.ones(3), numpy.ones(3)),
    (numpy.ones((2, 3, 4)), numpy.ones(3), numpy.ones(3)),           # x must be 2-D
    (numpy.ones((2, 3)), numpy.ones(4), numpy.ones(4)),              # units differ
    (numpy.ones((2, 3)), numpy.ones(3), numpy.ones(2)),
    (numpy.ones((2, 3)), numpy.ones(3, numpy.float32), numpy.ones(3)),
    (numpy.ones((2, 3)), numpy.ones((1, 3)), numpy.ones((1, 3))),
])
def test_invalid_inputs(x, gamma, beta):
    with pytest.raises(type_check.InvalidType, match=MSG):
        layer_normalization(x, gamma, beta)
