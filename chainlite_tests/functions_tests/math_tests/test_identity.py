"""identity: one or several inputs, new Variables sharing the arrays, gradients, dtypes."""
import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.identity import identity

SHAPE_SETS = [((),), ((3,),), ((2, 3),), ((2, 3), (4,)), ((), (2,), (2, 3))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # The identity is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _inputs(shapes, dtype=numpy.float64, seed=0):
    return tuple(_uniform(s, dtype, seed + i) for i, s in enumerate(shapes))


def _as_tuple(ys):
    return ys if isinstance(ys, tuple) else (ys,)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes', SHAPE_SETS)
def test_forward(shapes, dtype):
    xs = [chainlite.Variable(x) for x in _inputs(shapes, dtype)]
    ys = identity(*xs)
    if len(xs) == 1:
        assert isinstance(ys, chainlite.Variable)
    else:
        assert isinstance(ys, tuple) and len(ys) == len(xs)
    for x, y in zip(xs, _as_tuple(ys)):
        assert y is not x
        assert y.dtype == dtype
        assert y.array is x.array  # unchanged: the same array, not a copy
        assert y.creator is not None


@pytest.mark.parametrize('shapes', SHAPE_SETS)
def test_backward(shapes):
    xs = _inputs(shapes)
    gys = _inputs(shapes, seed=10)
    gradient_check.check_backward(identity, xs, gys)


@pytest.mark.parametrize('shapes', SHAPE_SETS)
def test_double_backward(shapes):
    xs, gys, ggxs = _inputs(shapes), _inputs(shapes, seed=10), _inputs(shapes, seed=20)
    gradient_check.check_double_backward(identity, xs, gys, ggxs)
    gradient_check.check_double_backward(lambda *xs: identity(*[x * x for x in xs]), xs, gys,
                                         ggxs)


def test_gradients_pass_through_and_unused_outputs_give_none():
    x, z = chainlite.Variable(numpy.zeros(2)), chainlite.Variable(numpy.zeros(3))
    y, _ = identity(x, z)
    y.grad = numpy.array([1.0, 2.0])
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [1.0, 2.0])
    assert z.grad is None


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = identity(x)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones((2, 3), numpy.float32)
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_array_and_integer_inputs():
    a, b = numpy.arange(3), _uniform((2,))
    y, w = identity(a, b)
    assert isinstance(y, chainlite.Variable) and isinstance(w, chainlite.Variable)
    assert y.dtype == a.dtype
    assert y.array is a and w.array is b


def test_no_inputs_give_an_empty_tuple():
    assert identity() == ()
