"""gelu (exact erf form): forward against SciPy, gradients to second order, dtypes."""
import math
import re

import numpy
import pytest
from scipy import special

import chainlite
from chainlite import gradient_check
from chainlite.functions.activation.gelu import gelu
from chainlite.utils import type_check

SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 2e-3, 'rtol': 2e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-14, 'rtol': 1e-14}}


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Smooth everywhere; [-3, 3] covers the curved part of the function.
    return numpy.random.RandomState(seed).uniform(-3, 3, shape).astype(dtype)


def _expected(x):
    x = x.astype(numpy.float64)
    return 0.5 * x * (1 + special.erf(x / math.sqrt(2)))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    x = _uniform(shape, dtype)
    y = gelu(chainlite.Variable(x))
    assert y.shape == shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _expected(x), **TOL[dtype])


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    gradient_check.check_backward(gelu, (_uniform(shape),), (_uniform(shape, seed=1),))


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    gradient_check.check_double_backward(
        gelu, (_uniform(shape),), (_uniform(shape, seed=1),), (_uniform(shape, seed=2),))


def test_derivatives_by_formula():
    x = chainlite.Variable(numpy.array([-1.5, 0.2, 2.0]))
    g1, = chainlite.grad([gelu(x)], [x], [numpy.ones(3)], enable_double_backprop=True)
    g2, = chainlite.grad([g1], [x], [numpy.ones(3)])
    a = x.array
    pdf = numpy.exp(-a * a / 2) / math.sqrt(2 * math.pi)
    numpy.testing.assert_allclose(g1.array, special.ndtr(a) + a * pdf)
    numpy.testing.assert_allclose(g2.array, pdf * (2 - a * a))


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_low_precision_in_same_dtype_out(dtype):
    x = chainlite.Variable(_uniform((2, 3), dtype))
    y = gelu(x)
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == dtype


def test_array_input():
    x = _uniform((2, 3))
    y = gelu(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, _expected(x))


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: GELU (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        gelu(numpy.zeros((2, 3), dtype))
