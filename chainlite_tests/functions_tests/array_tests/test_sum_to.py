"""F.sum_to: the transpose of broadcasting; values, gradients, dtypes and shape errors."""
import re

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import gradient_check
from chainlite.utils import type_check

# (input shape, target shape)
CASES = [((), ()), ((3,), ()), ((2, 3), ()), ((2, 3), (3,)), ((2, 3), (1, 3)), ((2, 3), (2, 1)),
         ((2, 3), (1, 1)), ((2, 3, 4), (3, 1)), ((2, 3, 4), (1, 3, 1)), ((2, 3), (2, 3))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Summation is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _reference(x, shape):
    # Sum the leading axes away, then the axes that are 1 in the target.
    x = x.astype(numpy.float64)
    lead = x.ndim - len(shape)
    x = x.sum(axis=tuple(range(lead)))
    axes = tuple(i for i, s in enumerate(shape) if s == 1)
    return x.sum(axis=axes, keepdims=True)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('in_shape, shape', CASES)
def test_forward(in_shape, shape, dtype):
    x = _uniform(in_shape, dtype)
    y = F.sum_to(chainlite.Variable(x), shape)
    assert y.shape == shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _reference(x, shape), **TOL[dtype])


def test_known_values():
    x = numpy.arange(6.0).reshape(2, 3)
    numpy.testing.assert_array_equal(F.sum_to(x, (1, 3)).array, [[3.0, 5.0, 7.0]])
    numpy.testing.assert_array_equal(F.sum_to(x, (2, 1)).array, [[3.0], [12.0]])
    numpy.testing.assert_array_equal(F.sum_to(x, ()).array, 15.0)


@pytest.mark.parametrize('in_shape, shape', CASES)
def test_backward(in_shape, shape):
    gradient_check.check_backward(lambda x: F.sum_to(x, shape), (_uniform(in_shape),),
                                  (_uniform(shape, seed=1),))


@pytest.mark.parametrize('in_shape, shape', CASES)
def test_double_backward(in_shape, shape):
    x, gy, ggx = _uniform(in_shape), _uniform(shape, seed=1), _uniform(in_shape, seed=2)
    gradient_check.check_double_backward(lambda x: F.sum_to(x, shape), (x,), (gy,), (ggx,))
    gradient_check.check_double_backward(lambda x: F.sum_to(x * x, shape), (x,), (gy,),
                                         (ggx,))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = F.sum_to(x, (3,))
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    numpy.testing.assert_array_equal(x.grad, numpy.ones((2, 3)))


def test_same_shape_returns_a_variable():
    x = _uniform((2, 3))
    y = F.sum_to(x, (2, 3))
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, x)


@pytest.mark.parametrize('in_shape, shape', [((2, 3), (4,)), ((2, 3), (2,)), ((3,), (2, 3)),
                                             ((2, 3), (3, 3))])
def test_incompatible_shape_is_invalid(in_shape, shape):
    msg = re.escape('Invalid operation is performed in: SumTo (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        F.sum_to(numpy.zeros(in_shape), shape)
