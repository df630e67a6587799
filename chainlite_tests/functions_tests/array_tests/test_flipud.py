"""flipud: reverses axis 0, a view, gradients, dtypes, and inputs with fewer than one axes."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.flipud import flipud
from chainlite.utils import type_check

SHAPES = [(1,), (3,), (2, 3), (3, 4, 2)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Flipping is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    x = _uniform(shape, dtype)
    y = flipud(chainlite.Variable(x))
    assert y.shape == shape
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, numpy.flipud(x))
    numpy.testing.assert_array_equal(y.array, numpy.flip(x, 0))
    assert numpy.shares_memory(y.array, x)  # a view, no copy


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    gradient_check.check_backward(flipud, (_uniform(shape),), (_uniform(shape, seed=1),))


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    x, gy, ggx = _uniform(shape), _uniform(shape, seed=1), _uniform(shape, seed=2)
    gradient_check.check_double_backward(flipud, (x,), (gy,), (ggx,))
    gradient_check.check_double_backward(lambda x: flipud(x * x), (x,), (gy,), (ggx,))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = flipud(x)
    assert y.dtype == numpy.float32
    gy = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    y.grad = gy
    y.backward()
    assert x.grad.dtype == numpy.float32
    numpy.testing.assert_array_equal(x.grad, numpy.flip(gy, 0))


def test_array_input():
    x = _uniform((2, 3))
    y = flipud(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, x[::-1])


@pytest.mark.parametrize('shape', [()])
def test_too_few_axes_is_invalid(shape):
    msg = re.escape('Invalid operation is performed in: FlipUD (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        flipud(numpy.zeros(shape))
