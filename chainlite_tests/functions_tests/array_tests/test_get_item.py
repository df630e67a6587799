"""F.get_item (``x[...]``): basic and advanced NumPy indexes, gradients, dtypes, errors."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import gradient_check

SHAPE = (4, 3)
# Each index is applied to a (4, 3) input, as numpy would apply it.
INDEXES = {
    'int': 1,
    'negative int': -1,
    'int pair (0-d result)': (2, 1),
    'slice': slice(1, 3),
    'negative step': slice(None, None, -2),
    'slices both axes': (slice(3, 0, -1), slice(0, 2)),
    'None': (None, slice(None), 1),
    'Ellipsis': (Ellipsis, 0),
    'Ellipsis and None': (Ellipsis, None),
    'int array': numpy.array([0, 2]),
    'int array with repeats': numpy.array([1, 1, 3, 1]),
    'two int arrays with repeats': (numpy.array([0, 3, 0]), numpy.array([1, 2, 1])),
    'int array and slice': (slice(None, None, -1), numpy.array([2, 2, 0])),
    '2-d int array': numpy.array([[0, 1], [1, 0]]),
    'negative int array': numpy.array([-1, -4, -1]),
    'bool mask rows': numpy.array([True, False, True, True]),
    'bool mask all': numpy.arange(12).reshape(SHAPE) % 5 == 0,
    'list': [3, 0, 3],
    'list of bools': [False, True, True, False],
    'empty int array': numpy.array([], numpy.int64),
}
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Indexing is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _np_index(index):
    # NumPy takes a list as an array index, exactly as get_item does.
    return numpy.asarray(index) if isinstance(index, list) else index


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('index', list(INDEXES.values()), ids=list(INDEXES))
def test_forward(index, dtype):
    x = _uniform(SHAPE, dtype)
    expected = x[_np_index(index)]
    for y in (F.get_item(chainlite.Variable(x), index), chainlite.Variable(x)[index]):
        assert isinstance(y.array, numpy.ndarray)
        assert y.shape == expected.shape
        assert y.dtype == dtype
        numpy.testing.assert_array_equal(y.array, expected)


@pytest.mark.parametrize('index', list(INDEXES.values()), ids=list(INDEXES))
def test_backward(index):
    x = _uniform(SHAPE)
    gy = _uniform(x[_np_index(index)].shape, seed=1)
    gradient_check.check_backward(lambda x: x[index], (x,), (gy,))


@pytest.mark.parametrize('index', list(INDEXES.values()), ids=list(INDEXES))
def test_double_backward(index):
    x, ggx = _uniform(SHAPE), _uniform(SHAPE, seed=2)
    gy = _uniform(x[_np_index(index)].shape, seed=1)
    gradient_check.check_double_backward(lambda x: x[index], (x,), (gy,), (ggx,))
    gradient_check.check_double_backward(lambda x: (x * x)[index], (x,), (gy,), (ggx,))


def test_repeated_indexes_add_up_their_gradients():
    x = chainlite.Variable(numpy.zeros(4))
    y = x[numpy.array([0, 2, 0, 0])]
    y.grad = numpy.array([1.0, 10.0, 100.0, 1000.0])
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [1101.0, 0.0, 10.0, 0.0])

    x = chainlite.Variable(numpy.zeros((2, 2)))
    y = F.get_item(x, ([1, 1, 0], [0, 0, 1]))
    y.grad = numpy.array([1.0, 2.0, 4.0])
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[0.0, 4.0], [3.0, 0.0]])


def test_unselected_elements_get_zero_gradient():
    x = chainlite.Variable(numpy.zeros((3, 2)))
    y = x[::-2]
    y.grad = numpy.ones((2, 2))
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0]])


def test_zero_dim_result():
    x = chainlite.Variable(_uniform(SHAPE))
    y = x[1, 2]
    assert isinstance(y.array, numpy.ndarray)
    assert y.shape == ()
    y.backward()
    expected = numpy.zeros(SHAPE)
    expected[1, 2] = 1.0
    numpy.testing.assert_array_equal(x.grad, expected)


def test_zero_dim_input_with_empty_index():
    x = _uniform(())
    for index in ((), Ellipsis, None):
        y = F.get_item(chainlite.Variable(x), index)
        numpy.testing.assert_array_equal(y.array, x[index])
        gy = _uniform(x[index].shape, seed=1)
        gradient_check.check_backward(lambda v, index=index: v[index], (x,), (gy,))


def test_variable_index_is_used_through_its_array():
    x = _uniform(SHAPE)
    index = chainlite.Variable(numpy.array([2, 2, 1]))
    numpy.testing.assert_array_equal(F.get_item(x, index).array, x[[2, 2, 1]])


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform(SHAPE, numpy.float32))
    y = x[numpy.array([0, 0, 1])]
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_array_input():
    x = _uniform(SHAPE)
    y = F.get_item(x, (slice(None), 0))
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, x[:, 0])


@pytest.mark.parametrize('index', [4, -5, (0, 3), numpy.array([0, 4]), (0, 0, 0)],
                         ids=['int', 'negative int', 'second axis', 'int array', 'too many'])
def test_out_of_range_index_is_an_index_error(index):
    with pytest.raises(IndexError, match='get_item'):
        F.get_item(numpy.zeros(SHAPE), index)
