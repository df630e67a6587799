"""where: elements of x where the condition holds, of y elsewhere; shapes broadcast."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.where import where
from chainlite.utils import type_check

# (condition shape, x shape, y shape)
CASES = [((), (), ()),
         ((3,), (3,), (3,)),
         ((2, 3), (2, 3), (2, 3)),
         ((2, 3), (3,), (2, 1)),      # x and y broadcast
         ((3,), (2, 3), ()),          # the condition broadcasts
         ((2, 1, 3), (4, 1), (1,))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Selection is linear in x and y: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _condition(shape, seed=5):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape) > 0


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('cshape, xshape, yshape', CASES)
def test_forward(cshape, xshape, yshape, dtype):
    c, x, y = _condition(cshape), _uniform(xshape, dtype), _uniform(yshape, dtype, 1)
    z = where(c, chainlite.Variable(x), chainlite.Variable(y))
    assert z.dtype == dtype
    numpy.testing.assert_array_equal(z.array, numpy.where(c, x, y))


@pytest.mark.parametrize('cshape, xshape, yshape', CASES)
def test_backward(cshape, xshape, yshape):
    c, x, y = _condition(cshape), _uniform(xshape), _uniform(yshape, seed=1)
    gz = _uniform(numpy.where(c, x, y).shape, seed=2)
    gradient_check.check_backward(lambda x, y: where(c, x, y), (x, y), gz)


@pytest.mark.parametrize('cshape, xshape, yshape', CASES)
def test_double_backward(cshape, xshape, yshape):
    c, x, y = _condition(cshape), _uniform(xshape), _uniform(yshape, seed=1)
    gz = _uniform(numpy.where(c, x, y).shape, seed=2)
    ggs = (_uniform(xshape, seed=3), _uniform(yshape, seed=4))
    gradient_check.check_double_backward(lambda x, y: where(c, x, y), (x, y), gz, ggs)
    gradient_check.check_double_backward(lambda x, y: where(c, x * x, y * y), (x, y), gz, ggs)


def test_gradients_go_where_each_input_was_chosen():
    c = numpy.array([True, False, True])
    x, y = chainlite.Variable(numpy.zeros(3)), chainlite.Variable(numpy.zeros(3))
    z = where(c, x, y)
    z.grad = numpy.array([1.0, 2.0, 3.0])
    z.backward()
    numpy.testing.assert_array_equal(x.grad, [1.0, 0.0, 3.0])
    numpy.testing.assert_array_equal(y.grad, [0.0, 2.0, 0.0])


def test_condition_variable_gets_no_gradient():
    c = chainlite.Variable(numpy.array([True, False]))
    x = chainlite.Variable(numpy.ones(2))
    z = where(c, x, numpy.zeros(2))
    numpy.testing.assert_array_equal(z.array, [1.0, 0.0])
    z.grad = numpy.ones(2)
    z.backward()
    assert c.grad is None
    numpy.testing.assert_array_equal(x.grad, [1.0, 0.0])


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = chainlite.Variable(_uniform((3,), numpy.float32, 1))
    z = where(_condition((2, 3)), x, y)
    assert z.dtype == numpy.float32
    z.grad = numpy.ones_like(z.array)
    z.backward()
    assert x.grad.dtype == y.grad.dtype == numpy.float32


def test_array_inputs():
    z = where(_condition((3,)), _uniform((3,)), _uniform((3,), seed=1))
    assert isinstance(z, chainlite.Variable)


_MSG = re.escape('Invalid operation is performed in: Where (Forward)')


@pytest.mark.parametrize('c, x, y', [
    (numpy.array([1, 0]), numpy.zeros(2), numpy.zeros(2)),                  # int condition
    (numpy.array([True, False]), numpy.zeros(2), numpy.zeros(2, 'f')),     # dtypes differ
    (numpy.array([True, False]), numpy.zeros(2), numpy.zeros(3)),           # shapes
    (numpy.array([True, False, True]), numpy.zeros(2), numpy.zeros(2)),
], ids=['condition dtype', 'dtype', 'shape', 'condition shape'])
def test_invalid_inputs(c, x, y):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        where(c, x, y)
