"""separate: the slices of an array along an axis; unused slices backpropagate zeros."""
import re

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import gradient_check
from chainlite.functions.array.separate import separate
from chainlite.utils import type_check

CASES = [((3,), 0), ((3,), -1), ((1,), 0), ((2, 3), 0), ((2, 3), 1), ((2, 3, 4), -2),
         ((2, 1, 2), 1)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Separation is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _expected(x, axis):
    return [numpy.take(x, i, axis) for i in range(x.shape[axis])]


def _grads(x, axis, seed=1):
    return tuple(_uniform(e.shape, seed=seed + i) for i, e in enumerate(_expected(x, axis)))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, axis', CASES)
def test_forward(shape, axis, dtype):
    x = _uniform(shape, dtype)
    ys = separate(chainlite.Variable(x), axis)
    expected = _expected(x, axis)
    assert isinstance(ys, tuple) and len(ys) == len(expected)
    for y, e in zip(ys, expected):
        assert isinstance(y.array, numpy.ndarray)
        assert y.dtype == dtype
        numpy.testing.assert_array_equal(y.array, e)


def test_outputs_are_views():
    x = _uniform((2, 3))
    assert all(numpy.shares_memory(y.array, x) for y in separate(x, 1))


@pytest.mark.parametrize('shape, axis', CASES)
def test_backward(shape, axis):
    x = _uniform(shape)
    gradient_check.check_backward(lambda x: separate(x, axis), x, _grads(x, axis))


@pytest.mark.parametrize('shape, axis', CASES)
def test_double_backward(shape, axis):
    x, ggx = _uniform(shape), _uniform(shape, seed=20)
    gys = _grads(x, axis)
    gradient_check.check_double_backward(lambda x: separate(x, axis), x, gys, ggx)
    gradient_check.check_double_backward(lambda x: separate(x * x, axis), x, gys, ggx)


def test_unused_slices_get_zero_gradients():
    x = chainlite.Variable(_uniform((2, 3)))
    ys = separate(x, 1)
    F.sum(ys[1]).backward()
    numpy.testing.assert_array_equal(x.grad, [[0, 1, 0], [0, 1, 0]])
    gys = (None, _uniform((2,)), None)
    gradient_check.check_backward(lambda x: separate(x, 1), x.array, gys)


def test_default_axis_is_0():
    assert len(separate(numpy.zeros((4, 2)))) == 4


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    ys = separate(x, 1)
    assert all(y.dtype == numpy.float32 for y in ys)
    F.sum(ys[0]).backward()
    assert x.grad.dtype == numpy.float32


def test_array_input():
    ys = separate(_uniform((2, 3)))
    assert all(isinstance(y, chainlite.Variable) for y in ys)


@pytest.mark.parametrize('shape, axis', [((2, 3), 2), ((2, 3), -3), ((), 0)])
def test_axis_out_of_range_is_invalid(shape, axis):
    msg = re.escape('Invalid operation is performed in: Separate (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        separate(numpy.zeros(shape), axis)


def test_non_integer_axis_is_a_type_error():
    with pytest.raises(TypeError, match='axis'):
        separate(numpy.zeros((2, 3)), 1.0)
