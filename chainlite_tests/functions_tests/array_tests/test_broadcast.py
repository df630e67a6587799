"""F.broadcast_to and broadcast: NumPy's broadcasting rules, gradients summed back, dtypes and
errors."""
import re

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import gradient_check
from chainlite.functions.array.broadcast import broadcast
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


# F.broadcast: several inputs broadcast against each other.

# Input shapes broadcast together.
MULTI_CASES = [((), ()), ((), (3,)), ((3,), (2, 3)), ((2, 1), (1, 3)), ((2, 3), (2, 3)),
               ((3, 1), (2, 1, 4), (4,)), ((1,), (2, 3, 1), (), (3, 1))]


def _multi_inputs(shapes, dtype=numpy.float64, seed=0):
    return tuple(_uniform(s, dtype, seed + i) for i, s in enumerate(shapes))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes', MULTI_CASES)
def test_broadcast_forward(shapes, dtype):
    xs = _multi_inputs(shapes, dtype)
    ys = broadcast(*[chainlite.Variable(x) for x in xs])
    assert isinstance(ys, tuple) and len(ys) == len(xs)
    for y, expected in zip(ys, numpy.broadcast_arrays(*xs)):
        assert y.shape == expected.shape
        assert y.dtype == dtype
        numpy.testing.assert_array_equal(y.array, expected)


@pytest.mark.parametrize('shapes', MULTI_CASES)
def test_broadcast_backward(shapes):
    xs = _multi_inputs(shapes)
    out_shape = numpy.broadcast_shapes(*shapes)
    gys = tuple(_uniform(out_shape, seed=10 + i) for i in range(len(xs)))
    gradient_check.check_backward(broadcast, xs, gys)


@pytest.mark.parametrize('shapes', MULTI_CASES)
def test_broadcast_double_backward(shapes):
    xs = _multi_inputs(shapes)
    out_shape = numpy.broadcast_shapes(*shapes)
    gys = tuple(_uniform(out_shape, seed=10 + i) for i in range(len(xs)))
    ggxs = _multi_inputs(shapes, seed=20)
    gradient_check.check_double_backward(broadcast, xs, gys, ggxs)
    gradient_check.check_double_backward(lambda *xs: broadcast(*[x * x for x in xs]), xs,
                                         gys, ggxs)


def test_broadcast_gradient_of_an_unused_output_is_none_not_zero():
    x, z = chainlite.Variable(numpy.zeros((2, 1))), chainlite.Variable(numpy.zeros(3))
    y, _ = broadcast(x, z)
    y.grad = numpy.ones((2, 3))
    y.backward()
    numpy.testing.assert_array_equal(x.grad, numpy.full((2, 1), 3.0))
    assert z.grad is None


def test_broadcast_single_input_is_returned_as_a_variable():
    x = chainlite.Variable(_uniform((2, 3)))
    assert broadcast(x) is x
    a = _uniform((2, 3))
    y = broadcast(a)
    assert isinstance(y, chainlite.Variable)
    assert y.array is a


def test_broadcast_dtypes_may_differ_and_stay():
    y, w = broadcast(_uniform((3,), numpy.float32), numpy.arange(2).reshape(2, 1))
    assert y.dtype == numpy.float32 and w.dtype == numpy.arange(2).dtype
    assert y.shape == w.shape == (2, 3)


def test_broadcast_float32_in_float32_out():
    x = chainlite.Variable(_uniform((3,), numpy.float32))
    z = chainlite.Variable(_uniform((2, 1), numpy.float32))
    y, w = broadcast(x, z)
    assert y.dtype == w.dtype == numpy.float32
    y.grad = numpy.ones((2, 3), numpy.float32)
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_broadcast_array_inputs():
    ys = broadcast(_uniform((3,)), _uniform((2, 1)))
    assert all(isinstance(y, chainlite.Variable) for y in ys)


@pytest.mark.parametrize('shapes', [((2,), (3,)), ((2, 3), (3, 2)), ((2, 1), (3,), (4, 1))])
def test_broadcast_incompatible_shapes_are_invalid(shapes):
    msg = re.escape('Invalid operation is performed in: Broadcast (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        broadcast(*[numpy.zeros(s) for s in shapes])


def test_broadcast_of_nothing_is_invalid():
    with pytest.raises(type_check.InvalidType, match='Broadcast'):
        broadcast()
