"""F.broadcast_to: NumPy's broadcasting rules, gradients summed back, dtypes and errors."""
import re

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import gradient_check
from chainlite.utils import type_check

# (input shape, target shape)
CASES = [((), ()), ((), (3,)), ((), (2, 3)), ((1,), (3,)), ((3,), (2, 3)), ((2, 1), (2, 3)),
         ((3, 1), (2, 3, 4)), ((1, 3, 1), (2, 3, 4)), ((2, 3), (2, 3))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Broadcasting is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('in_shape, shape', CASES)
def test_forward(in_shape, shape, dtype):
    x = _uniform(in_shape, dtype)
    y = F.broadcast_to(chainlite.Variable(x), shape)
    assert y.shape == shape
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, numpy.broadcast_to(x, shape))


@pytest.mark.parametrize('in_shape, shape', CASES)
def test_backward(in_shape, shape):
    gradient_check.check_backward(lambda x: F.broadcast_to(x, shape), (_uniform(in_shape),),
                                  (_uniform(shape, seed=1),))


@pytest.mark.parametrize('in_shape, shape', CASES)
def test_double_backward(in_shape, shape):
    x, gy, ggx = _uniform(in_shape), _uniform(shape, seed=1), _uniform(in_shape, seed=2)
    gradient_check.check_double_backward(lambda x: F.broadcast_to(x, shape), (x,), (gy,),
                                         (ggx,))
    gradient_check.check_double_backward(lambda x: F.broadcast_to(x * x, shape), (x,), (gy,),
                                         (ggx,))


def test_gradient_sums_over_broadcast_axes():
    x = chainlite.Variable(numpy.zeros((2, 1)))
    y = F.broadcast_to(x, (3, 2, 4))
    y.grad = numpy.ones((3, 2, 4))
    y.backward()
    numpy.testing.assert_array_equal(x.grad, numpy.full((2, 1), 12.0))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((3,), numpy.float32))
    y = F.broadcast_to(x, (2, 3))
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    numpy.testing.assert_array_equal(x.grad, [2.0, 2.0, 2.0])


def test_array_input_and_list_shape():
    x = _uniform((3,))
    y = F.broadcast_to(x, [2, 3])
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, numpy.broadcast_to(x, (2, 3)))


@pytest.mark.parametrize('in_shape, shape', [((2, 3), (3, 3)), ((3,), (4,)), ((2, 3), (3,)),
                                             ((2,), ()), ((2, 1), (3, 3))])
def test_incompatible_shape_is_invalid(in_shape, shape):
    msg = re.escape('Invalid operation is performed in: BroadcastTo (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        F.broadcast_to(numpy.zeros(in_shape), shape)
