"""scatter_add: a copy of a with b added at an index; repeated indexes accumulate."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.scatter_add import scatter_add
from chainlite.utils import type_check

SHAPE = (4, 3)
# Each index is applied to a (4, 3) input, as numpy would apply it.
INDEXES = {
    'int': 1,
    'int pair (0-d b)': (2, 1),
    'slice': slice(1, 3),
    'negative step': (slice(None), slice(None, None, -2)),
    'None': (None, slice(None), 1),
    'Ellipsis': (Ellipsis, 0),
    'int array': numpy.array([0, 2]),
    'int array with repeats': numpy.array([1, 1, 3, 1]),
    'two int arrays with repeats': (numpy.array([0, 3, 0]), numpy.array([1, 2, 1])),
    'int array and slice': (slice(None), numpy.array([2, 2, 0])),
    'bool mask': numpy.arange(12).reshape(SHAPE) % 5 == 0,
    'list': [3, 0, 3],
}
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Addition is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _np_index(index):
    return numpy.asarray(index) if isinstance(index, list) else index


def _expected(a, index, b):
    y = a.copy()
    numpy.add.at(y, _np_index(index), b)
    return y


def _b_shape(index):
    return numpy.zeros(SHAPE)[_np_index(index)].shape


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('index', list(INDEXES.values()), ids=list(INDEXES))
def test_forward(index, dtype):
    a, b = _uniform(SHAPE, dtype), _uniform(_b_shape(index), dtype, seed=1)
    a_before = a.copy()
    y = scatter_add(chainlite.Variable(a), index, chainlite.Variable(b))
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, _expected(a, index, b))
    numpy.testing.assert_array_equal(a, a_before)  # a is not changed


@pytest.mark.parametrize('index', list(INDEXES.values()), ids=list(INDEXES))
def test_backward(index):
    a, b = _uniform(SHAPE), _uniform(_b_shape(index), seed=1)
    gy = _uniform(SHAPE, seed=2)
    gradient_check.check_backward(lambda a, b: scatter_add(a, index, b), (a, b), gy)


@pytest.mark.parametrize('index', list(INDEXES.values()), ids=list(INDEXES))
def test_double_backward(index):
    a, b = _uniform(SHAPE), _uniform(_b_shape(index), seed=1)
    gy = _uniform(SHAPE, seed=2)
    ggs = (_uniform(SHAPE, seed=3), _uniform(b.shape, seed=4))
    gradient_check.check_double_backward(lambda a, b: scatter_add(a, index, b), (a, b), gy,
                                         ggs)
    gradient_check.check_double_backward(lambda a, b: scatter_add(a * a, index, b * b), (a, b),
                                         gy, ggs)


def test_repeated_indexes_accumulate():
    y = scatter_add(numpy.zeros(3), numpy.array([0, 2, 0, 0]),
                    numpy.array([1.0, 10.0, 100.0, 1000.0]))
    numpy.testing.assert_array_equal(y.array, [1101.0, 0.0, 10.0])


def test_gradients():
    a = chainlite.Variable(numpy.zeros(3))
    b = chainlite.Variable(numpy.zeros(2))
    y = scatter_add(a, numpy.array([2, 2]), b)
    y.grad = numpy.array([1.0, 2.0, 3.0])
    y.backward()
    numpy.testing.assert_array_equal(a.grad, [1.0, 2.0, 3.0])
    numpy.testing.assert_array_equal(b.grad, [3.0, 3.0])


def test_zero_dim_input():
    a, b = _uniform(()), _uniform((), seed=1)
    for index in ((), Ellipsis):
        numpy.testing.assert_array_equal(scatter_add(a, index, b).array, a + b)
        gradient_check.check_backward(lambda a, b: scatter_add(a, index, b), (a, b),
                                      _uniform((), seed=2))


def test_variable_index_is_used_through_its_array():
    index = chainlite.Variable(numpy.array([1, 1]))
    y = scatter_add(numpy.zeros(3), index, numpy.ones(2))
    numpy.testing.assert_array_equal(y.array, [0.0, 2.0, 0.0])


def test_float32_in_float32_out():
    a = chainlite.Variable(_uniform(SHAPE, numpy.float32))
    b = chainlite.Variable(_uniform((3, 3), numpy.float32, 1))
    y = scatter_add(a, numpy.array([0, 0, 2]), b)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert a.grad.dtype == b.grad.dtype == numpy.float32


def test_array_inputs():
    assert isinstance(scatter_add(numpy.zeros(3), 0, numpy.ones(())), chainlite.Variable)


_MSG = re.escape('Invalid operation is performed in: ScatterAdd (Forward)')


@pytest.mark.parametrize('index, b', [
    (1, numpy.zeros(2)),                       # b is not broadcast
    (slice(0, 2), numpy.zeros((1, 3))),
    (numpy.array([0, 0]), numpy.zeros((2, 3), numpy.float32)),   # dtypes differ
], ids=['shape', 'no broadcast', 'dtype'])
def test_invalid_inputs(index, b):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        scatter_add(numpy.zeros(SHAPE), index, b)


@pytest.mark.parametrize('index', [4, (0, 3), numpy.array([0, 4])])
def test_out_of_range_index_is_an_index_error(index):
    with pytest.raises(IndexError, match='scatter_add'):
        scatter_add(numpy.zeros(SHAPE), index, numpy.zeros(()))
