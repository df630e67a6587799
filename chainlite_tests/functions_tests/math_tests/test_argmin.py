"""argmin: indices against NumPy, int32 results outside the graph, and bad inputs."""
import re

import numpy
import pytest

import chainlite
from chainlite.functions.math.argmin import argmin
from chainlite.utils import type_check

CASES = [((), None), ((3,), None), ((3,), 0), ((3,), -1), ((2, 3), None), ((2, 3), 1),
         ((2, 3, 4), -2), ((2, 3, 4), numpy.int64(0))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, axis', CASES)
def test_forward(shape, axis, dtype):
    x = _uniform(shape, dtype)
    for arg in (x, chainlite.Variable(x)):
        y = argmin(arg, axis=axis)
        expected = numpy.argmin(x, axis=axis)
        assert isinstance(y.array, numpy.ndarray)
        assert y.dtype == numpy.int32
        assert y.shape == numpy.shape(expected)
        numpy.testing.assert_array_equal(y.array, expected)


def test_first_occurrence_wins_a_tie():
    assert argmin(numpy.array([3.0, 1.0, 1.0])).array == 1


def test_result_is_outside_the_graph():
    x = chainlite.Variable(_uniform((2, 3)))
    y = argmin(x, axis=0)
    assert y.creator is None
    assert not y.requires_grad


@pytest.mark.parametrize('axis', [2, -3])
def test_axis_out_of_range_is_invalid(axis):
    msg = re.escape('Invalid operation is performed in: argmin (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        argmin(numpy.zeros((2, 3)), axis=axis)


@pytest.mark.parametrize('axis', [(0,), (0, 1), 1.0])
def test_non_int_axis_is_a_type_error(axis):
    # As Chainer: one axis or none, never a tuple.
    with pytest.raises(TypeError, match='argmin'):
        argmin(numpy.zeros((2, 3)), axis=axis)


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: argmin (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        argmin(numpy.ones((2, 3), dtype))
    with pytest.raises(type_check.InvalidType, match=msg):
        argmin(chainlite.Variable(numpy.ones((2, 3), dtype)))
