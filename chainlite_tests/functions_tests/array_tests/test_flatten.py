"""flatten: C order, 0-d to (1,), a view where possible, gradients and dtypes."""
import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.flatten import flatten

SHAPES = [(), (1,), (3,), (2, 3), (2, 3, 4), (0, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Flattening is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    x = _uniform(shape, dtype)
    y = flatten(chainlite.Variable(x))
    assert y.shape == (x.size,)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, x.ravel())


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    x = _uniform(shape)
    gradient_check.check_backward(flatten, (x,), (_uniform((x.size,), seed=1),))


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    x, gy, ggx = _uniform(shape), _uniform((numpy.prod(shape, dtype=int),), seed=1), \
        _uniform(shape, seed=2)
    gradient_check.check_double_backward(flatten, (x,), (gy,), (ggx,))
    gradient_check.check_double_backward(lambda x: flatten(x * x), (x,), (gy,), (ggx,))


def test_contiguous_input_gives_a_view():
    x = _uniform((2, 3))
    assert numpy.shares_memory(flatten(x).array, x)


def test_non_contiguous_input_in_c_order():
    x = _uniform((3, 2)).T
    numpy.testing.assert_array_equal(flatten(x).array, x.ravel())


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = flatten(x)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    assert x.grad.shape == (2, 3)


def test_array_input():
    y = flatten(numpy.arange(6.0).reshape(2, 3))
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, numpy.arange(6.0))
