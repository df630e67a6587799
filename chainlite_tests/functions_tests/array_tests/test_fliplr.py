"""fliplr: reverses axis 1, a view, gradients, dtypes, and inputs with fewer than two axes."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.fliplr import fliplr
from chainlite.utils import type_check

SHAPES = [(2, 1), (2, 3), (3, 4, 2), (1, 2, 3, 2)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Flipping is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    x = _uniform(shape, dtype)
    y = fliplr(chainlite.Variable(x))
    assert y.shape == shape
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, numpy.fliplr(x))
    numpy.testing.assert_array_equal(y.array, numpy.flip(x, 1))
    assert numpy.shares_memory(y.array, x)  # a view, no copy


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    gradient_check.check_backward(fliplr, (_uniform(shape),), (_uniform(shape, seed=1),))


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    x, gy, ggx = _uniform(shape), _uniform(shape, seed=1), _uniform(shape, seed=2)
    gradient_check.check_double_backward(fliplr, (x,), (gy,), (ggx,))
    gradient_check.check_double_backward(lambda x: fliplr(x * x), (x,), (gy,), (ggx,))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = fliplr(x)
    assert y.dtype == numpy.float32
    gy = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    y.grad = gy
    y.backward()
    assert x.grad.dtype == numpy.float32
    numpy.testing.assert_array_equal(x.grad, numpy.flip(gy, 1))


def test_array_input():
    x = _uniform((2, 3))
    y = fliplr(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, x[:, ::-1])


@pytest.mark.parametrize('shape', [(), (3,)])
def test_too_few_axes_is_invalid(shape):
    msg = re.escape('Invalid operation is performed in: FlipLR (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        fliplr(numpy.zeros(shape))
