"""split_axis: views along an axis; unused pieces backpropagate zeros."""
import re

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import gradient_check
from chainlite.functions.array.split_axis import split_axis
from chainlite.utils import type_check

# (input shape, indices_or_sections, axis)
CASES = [((6,), 3, 0),
         ((6,), [2, 5], 0),
         ((2, 6), 2, 1),
         ((2, 6), [1, 1, 4], -1),      # a repeated point gives an empty piece
         ((4, 3, 2), [0, 3], 0),       # empty pieces at both ends
         ((4, 3, 2), numpy.array([1]), 1),
         ((3, 2), 1, 0),               # one piece
         ((3, 2), [], 1),              # no split point: one piece
         ((2, 5), [2, 5], 1)]          # a point at the end: an empty last piece
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Splitting is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _grads(x, ios, axis, seed=1):
    return tuple(_uniform(p.shape, seed=seed + i)
                 for i, p in enumerate(numpy.split(x, ios, axis)))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, ios, axis', CASES)
def test_forward(shape, ios, axis, dtype):
    x = _uniform(shape, dtype)
    ys = split_axis(chainlite.Variable(x), ios, axis)
    expected = numpy.split(x, ios, axis)
    assert isinstance(ys, tuple) and len(ys) == len(expected)
    for y, e in zip(ys, expected):
        assert y.dtype == dtype
        numpy.testing.assert_array_equal(y.array, e)


def test_outputs_are_views():
    x = _uniform((2, 6))
    ys = split_axis(x, 3, 1)
    assert all(numpy.shares_memory(y.array, x) for y in ys)


@pytest.mark.parametrize('shape, ios, axis', CASES)
def test_backward(shape, ios, axis):
    x = _uniform(shape)
    gradient_check.check_backward(lambda x: split_axis(x, ios, axis), x, _grads(x, ios, axis))


@pytest.mark.parametrize('shape, ios, axis', CASES)
def test_double_backward(shape, ios, axis):
    x, ggx = _uniform(shape), _uniform(shape, seed=20)
    gys = _grads(x, ios, axis)
    gradient_check.check_double_backward(lambda x: split_axis(x, ios, axis), x, gys, ggx)
    gradient_check.check_double_backward(lambda x: split_axis(x * x, ios, axis), x, gys, ggx)


def test_unused_pieces_get_zero_gradients():
    x = chainlite.Variable(_uniform((2, 6)))
    a, b, c = split_axis(x, 3, 1)
    F.sum(b).backward()
    numpy.testing.assert_array_equal(x.grad, [[0, 0, 1, 1, 0, 0]] * 2)


@pytest.mark.parametrize('used', [(0,), (1,), (0, 2)])
def test_backward_with_unused_pieces(used):
    x = _uniform((6, 2))
    gys = tuple(_uniform((2, 2), seed=i) if i in used else None for i in range(3))
    gradient_check.check_backward(lambda x: split_axis(x, 3, 0), x, gys)
    # Double backward through the pieces that are used.
    ggx = _uniform((6, 2), seed=9)
    gradient_check.check_double_backward(
        lambda x: tuple(split_axis(x * x, 3, 0)[i] for i in used), x,
        tuple(gys[i] for i in used), ggx)


def test_force_tuple():
    x = _uniform((3, 2))
    ys = split_axis(x, 1, 0)
    assert isinstance(ys, tuple) and len(ys) == 1
    y = split_axis(x, 1, 0, force_tuple=False)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, x)
    # Several pieces stay a tuple either way.
    assert isinstance(split_axis(x, 3, 0, force_tuple=False), tuple)


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((4, 2), numpy.float32))
    a, b = split_axis(x, 2, 0)
    assert a.dtype == b.dtype == numpy.float32
    F.sum(a).backward()  # b unused: its zeros must be float32 too
    assert x.grad.dtype == numpy.float32


def test_array_input():
    x = _uniform((4, 2))
    ys = split_axis(x, [1], 0)
    assert all(isinstance(y, chainlite.Variable) for y in ys)


_MSG = re.escape('Invalid operation is performed in: SplitAxis (Forward)')


@pytest.mark.parametrize('shape, ios, axis', [
    ((2, 5), 2, 1),          # 5 is not divisible by 2
    ((2, 5), [2, 6], 1),     # a point beyond the end
    ((2, 5), 2, 2),          # axis out of range
    ((2, 5), 2, -3),
    ((), 1, 0),              # 0-d has no axis
], ids=['sections', 'index', 'axis 2', 'axis -3', '0-d'])
def test_invalid_inputs(shape, ios, axis):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        split_axis(numpy.zeros(shape), ios, axis)


@pytest.mark.parametrize('ios', [0, -1, [3, 1], [-1, 2]])
def test_bad_indices_or_sections_are_value_errors(ios):
    with pytest.raises(ValueError, match='split_axis'):
        split_axis(numpy.zeros((2, 5)), ios, 1)


@pytest.mark.parametrize('ios', [[1.5], [[1, 2]], 2.0])
def test_non_integer_indices_are_type_errors(ios):
    with pytest.raises(TypeError, match='split_axis'):
        split_axis(numpy.zeros((2, 5)), ios, 1)
