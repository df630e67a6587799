"""F.floor: values, dtype, and that it stays outside the graph (it has no gradient)."""
import re

import numpy
import pytest

import chainlite
import chainlite.functions as F
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
        y = F.floor(arg)
        assert isinstance(y, chainlite.Variable)
        assert isinstance(y.array, numpy.ndarray)
        assert y.shape == shape
        assert y.dtype == dtype
        # floor is exact: the result is an integer representable in the input dtype.
        numpy.testing.assert_array_equal(y.array, numpy.floor(x))


def test_known_values():
    y = F.floor(numpy.array([1.5, -1.5, 2.0, -0.0, 0.999]))
    numpy.testing.assert_array_equal(y.array, [1.0, -2.0, 2.0, -0.0, 0.0])


def test_result_is_outside_the_graph():
    x = chainlite.Variable(_uniform((2, 3)))
    assert x.requires_grad
    y = F.floor(x)
    assert y.creator is None
    assert y.creator_node is None
    assert not y.requires_grad


def test_float32_in_float32_out():
    assert F.floor(_uniform((2, 3), numpy.float32)).dtype == numpy.float32


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.int64, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: floor (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        F.floor(numpy.ones((2, 3), dtype))
    with pytest.raises(type_check.InvalidType, match=msg):
        F.floor(chainlite.Variable(numpy.ones((2, 3), dtype)))
