"""permutate: slices reordered along an axis; the gradient takes the inverse permutation."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.permutate import permutate
from chainlite.utils import type_check

# (input shape, indices, axis)
CASES = [((3,), [2, 0, 1], 0),
         ((1,), [0], 0),
         ((4, 2), [1, 3, 0, 2], 0),
         ((2, 3), [2, 1, 0], 1),
         ((2, 3, 2), [1, 0], -1),
         ((2, 0), [1, 0], 0)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Permutation is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _expected(x, indices, axis, inv):
    if inv:
        indices = numpy.argsort(indices)
    return numpy.take(x, indices, axis)


@pytest.mark.parametrize('inv', [False, True])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, indices, axis', CASES)
def test_forward(shape, indices, axis, dtype, inv):
    x = _uniform(shape, dtype)
    ind = numpy.array(indices, numpy.int32)
    y = permutate(chainlite.Variable(x), ind, axis, inv)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, _expected(x, ind, axis, inv))


@pytest.mark.parametrize('inv', [False, True])
@pytest.mark.parametrize('shape, indices, axis', CASES)
def test_backward(shape, indices, axis, inv):
    x, ind = _uniform(shape), numpy.array(indices)
    gy = _uniform(shape, seed=1)
    gradient_check.check_backward(lambda x, i: permutate(x, i, axis, inv), (x, ind), gy)


@pytest.mark.parametrize('inv', [False, True])
@pytest.mark.parametrize('shape, indices, axis', CASES)
def test_double_backward(shape, indices, axis, inv):
    x, ind, ggx = _uniform(shape), numpy.array(indices), _uniform(shape, seed=2)
    gy = _uniform(shape, seed=1)
    gradient_check.check_double_backward(
        lambda x, i: permutate(x, i, axis, inv), (x, ind), gy, (ggx,))
    gradient_check.check_double_backward(
        lambda x, i: permutate(x * x, i, axis, inv), (x, ind), gy, (ggx,))


def test_inv_undoes_the_permutation():
    x, ind = _uniform((4, 3)), numpy.array([3, 1, 0, 2])
    y = permutate(permutate(x, ind), ind, inv=True)
    numpy.testing.assert_array_equal(y.array, x)


def test_indices_variable_is_accepted_and_gets_no_gradient():
    x = chainlite.Variable(_uniform((3,)))
    ind = chainlite.Variable(numpy.array([1, 2, 0]))
    y = permutate(x, ind)
    numpy.testing.assert_array_equal(y.array, x.array[[1, 2, 0]])
    y.grad = numpy.array([1.0, 2.0, 3.0])
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [3.0, 1.0, 2.0])
    assert ind.grad is None


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((3, 2), numpy.float32))
    y = permutate(x, numpy.array([2, 0, 1]))
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_array_input():
    y = permutate(_uniform((3,)), numpy.array([0, 2, 1]))
    assert isinstance(y, chainlite.Variable)


_MSG = re.escape('Invalid operation is performed in: Permutate (Forward)')


@pytest.mark.parametrize('shape, indices, axis', [
    ((3,), numpy.array([0.0, 1.0, 2.0]), 0),          # float indices
    ((3,), numpy.array([[0, 1, 2]]), 0),              # 2-d indices
    ((3,), numpy.array([0, 1]), 0),                   # wrong length
    ((3, 2), numpy.array([0, 1, 2]), 1),
    ((3,), numpy.array([0, 1, 2]), 1),                # axis out of range
    ((), numpy.array([0]), 0),
], ids=['float', '2-d', 'length', 'length axis 1', 'axis', '0-d'])
def test_invalid_inputs(shape, indices, axis):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        permutate(numpy.zeros(shape), indices, axis)


@pytest.mark.parametrize('indices', [[0, 0, 1], [0, 1, 3], [-1, 0, 1]])
def test_not_a_permutation_is_a_value_error(indices):
    with pytest.raises(ValueError, match='permutate'):
        permutate(numpy.zeros(3), numpy.array(indices))
