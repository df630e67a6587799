"""sign: values, dtype, and that it stays outside the graph (it has no gradient)."""
import re

import numpy
import pytest

import chainlite
from chainlite.functions.math.sign import sign
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
        y = sign(arg)
        assert isinstance(y, chainlite.Variable)
        assert isinstance(y.array, numpy.ndarray)
        assert y.shape == shape
        assert y.dtype == dtype
        numpy.testing.assert_array_equal(y.array, numpy.sign(x))


def test_known_values():
    y = sign(numpy.array([-2.5, -0.0, 0.0, 1e-300, numpy.inf, -numpy.inf, numpy.nan]))
    numpy.testing.assert_array_equal(y.array, [-1.0, 0.0, 0.0, 1.0, 1.0, -1.0, numpy.nan])


def test_result_is_outside_the_graph():
    x = chainlite.Variable(_uniform((2, 3)))
    assert x.requires_grad
    y = sign(x)
    assert y.creator is None
    assert y.creator_node is None
    assert not y.requires_grad


def test_float32_in_float32_out():
    assert sign(_uniform((2, 3), numpy.float32)).dtype == numpy.float32


def test_numpy_scalar_input():
    y = sign(numpy.float32(-3.0))
    assert y.shape == () and y.dtype == numpy.float32
    assert y.array == -1.0


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.int64, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: sign (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        sign(numpy.ones((2, 3), dtype))
    with pytest.raises(type_check.InvalidType, match=msg):
        sign(chainlite.Variable(numpy.ones((2, 3), dtype)))


def test_non_array_input_is_a_type_error():
    with pytest.raises(TypeError, match='sign'):
        sign([1.0, -1.0])
