"""ceil: values, dtype, and that it stays outside the graph (zero gradient a.e.)."""
import re

import numpy
import pytest

import chainlite
from chainlite.functions.math.ceil import ceil
from chainlite.utils import type_check

SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    return numpy.random.RandomState(seed).uniform(-5, 5, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    x = _uniform(shape, dtype)
    for arg in (x, chainlite.Variable(x)):
        y = ceil(arg)
        assert isinstance(y, chainlite.Variable)
        assert isinstance(y.array, numpy.ndarray)
        assert y.shape == shape
        assert y.dtype == dtype
        numpy.testing.assert_array_equal(y.array, numpy.ceil(x))


def test_known_values():
    y = ceil(numpy.array([1.5, -1.5, 2.0, -0.5, 0.001, numpy.inf]))
    numpy.testing.assert_array_equal(y.array, [2.0, -1.0, 2.0, -0.0, 1.0, numpy.inf])
    assert numpy.signbit(y.array[3])  # ceil(-0.5) is -0.0, as in NumPy


def test_result_is_outside_the_graph():
    x = chainlite.Variable(_uniform((2, 3)))
    assert x.requires_grad
    y = ceil(x)
    assert y.creator is None
    assert y.creator_node is None
    assert not y.requires_grad


def test_float32_in_float32_out():
    assert ceil(_uniform((2, 3), numpy.float32)).dtype == numpy.float32


def test_numpy_scalar_input():
    y = ceil(numpy.float32(-3.0))
    assert y.shape == () and y.dtype == numpy.float32
    assert y.array == -3.0


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.int64, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: ceil (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        ceil(numpy.ones((2, 3), dtype))
    with pytest.raises(type_check.InvalidType, match=msg):
        ceil(chainlite.Variable(numpy.ones((2, 3), dtype)))


def test_non_array_input_is_a_type_error():
    with pytest.raises(TypeError, match='ceil'):
        ceil([1.0, -1.0])
