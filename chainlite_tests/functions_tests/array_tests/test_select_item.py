"""select_item: y[i] = x[i, t[i]]; the gradient lands on the selected elements only."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.select_item import select_item
from chainlite.utils import type_check

# (x shape, t); x is always 2-d, so () does not apply.
CASES = [((3, 4), [0, 3, 1]),
         ((2, 2), [1, 1]),
         ((1, 5), [4]),
         ((4, 1), [0, 0, 0, 0]),
         ((0, 3), [])]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Selection is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('tdtype', [numpy.int32, numpy.int64])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, t', CASES)
def test_forward(shape, t, dtype, tdtype):
    x, t = _uniform(shape, dtype), numpy.array(t, tdtype)
    y = select_item(chainlite.Variable(x), t)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, x[numpy.arange(len(t)), t])


@pytest.mark.parametrize('shape, t', CASES)
def test_backward(shape, t):
    x, t = _uniform(shape), numpy.array(t, numpy.int32)
    gy = _uniform(t.shape, seed=1)
    gradient_check.check_backward(select_item, (x, t), gy)


@pytest.mark.parametrize('shape, t', CASES)
def test_double_backward(shape, t):
    x, t = _uniform(shape), numpy.array(t, numpy.int32)
    gy, ggx = _uniform(t.shape, seed=1), _uniform(shape, seed=2)
    gradient_check.check_double_backward(select_item, (x, t), gy, (ggx,))
    gradient_check.check_double_backward(lambda x, t: select_item(x * x, t), (x, t), gy,
                                         (ggx,))


def test_gradient_lands_on_the_selected_elements():
    x = chainlite.Variable(numpy.zeros((2, 3)))
    y = select_item(x, numpy.array([2, 0]))
    y.grad = numpy.array([1.0, 2.0])
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[0.0, 0.0, 1.0], [2.0, 0.0, 0.0]])


def test_t_variable_is_accepted_and_gets_no_gradient():
    x = chainlite.Variable(_uniform((2, 3)))
    t = chainlite.Variable(numpy.array([1, 2]))
    y = select_item(x, t)
    numpy.testing.assert_array_equal(y.array, [x.array[0, 1], x.array[1, 2]])
    y.grad = numpy.ones(2)
    y.backward()
    assert t.grad is None


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = select_item(x, numpy.array([0, 1]))
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_array_input():
    assert isinstance(select_item(_uniform((2, 3)), numpy.array([0, 1])), chainlite.Variable)


_MSG = re.escape('Invalid operation is performed in: SelectItem (Forward)')


@pytest.mark.parametrize('shape, t', [
    ((2, 3), numpy.array([0.0, 1.0])),     # float t
    ((2, 3), numpy.array([[0, 1]])),       # 2-d t
    ((3,), numpy.array([0, 1, 2])),        # 1-d x
    ((2, 3, 1), numpy.array([0, 1])),      # 3-d x
    ((2, 3), numpy.array([0, 1, 2])),      # lengths differ
], ids=['float t', '2-d t', '1-d x', '3-d x', 'length'])
def test_invalid_inputs(shape, t):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        select_item(numpy.zeros(shape), t)


@pytest.mark.parametrize('t', [[0, 3], [-1, 0]])
def test_t_out_of_range_is_a_value_error(t):
    with pytest.raises(ValueError, match='select_item'):
        select_item(numpy.zeros((2, 3)), numpy.array(t))
