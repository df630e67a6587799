"""F.sum over all axes, one axis, negative axes, tuples of axes, with and without keepdims."""
import re

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import gradient_check
from chainlite.utils import type_check

# (input shape, axis); () takes only axis=None (or the empty tuple).
CASES = [((), None), ((), ()), ((3,), None), ((3,), 0), ((3,), -1), ((2, 3), None),
         ((2, 3), 1), ((2, 3), -2), ((2, 3, 4), (0, 2)), ((2, 3, 4), (-1, 0)),
         ((2, 3, 4), (0, 1, 2))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Summation is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _np_axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


@pytest.mark.parametrize('keepdims', [False, True])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, axis', CASES)
def test_forward(shape, axis, dtype, keepdims):
    x = _uniform(shape, dtype)
    y = F.sum(chainlite.Variable(x), axis=axis, keepdims=keepdims)
    expected = x.astype(numpy.float64).sum(axis=_np_axis(axis), keepdims=keepdims)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('keepdims', [False, True])
@pytest.mark.parametrize('shape, axis', CASES)
def test_backward(shape, axis, keepdims):
    x = _uniform(shape)
    gy = _uniform(x.sum(axis=_np_axis(axis), keepdims=keepdims).shape, seed=1)
    gradient_check.check_backward(lambda x: F.sum(x, axis, keepdims), (x,), (gy,))


@pytest.mark.parametrize('keepdims', [False, True])
@pytest.mark.parametrize('shape, axis', CASES)
def test_double_backward(shape, axis, keepdims):
    x, ggx = _uniform(shape), _uniform(shape, seed=2)
    gy = _uniform(x.sum(axis=_np_axis(axis), keepdims=keepdims).shape, seed=1)
    gradient_check.check_double_backward(lambda x: F.sum(x, axis, keepdims), (x,), (gy,),
                                         (ggx,))
    # Inside a nonlinear expression (sum of squares), second-order terms must flow.
    gradient_check.check_double_backward(lambda x: F.sum(x * x, axis, keepdims), (x,), (gy,),
                                         (ggx,))


def test_gradient_broadcasts_back():
    x = chainlite.Variable(numpy.zeros((2, 3)))
    y = F.sum(x, axis=1)
    y.grad = numpy.array([1.0, 2.0])
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]])


def test_scalar_loss_backward():
    x = chainlite.Variable(_uniform((2, 3)))
    F.sum(x).backward()
    numpy.testing.assert_array_equal(x.grad, numpy.ones((2, 3)))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = F.sum(x, axis=0)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_array_input():
    x = _uniform((2, 3))
    y = F.sum(x, axis=-1)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, x.sum(axis=-1))


@pytest.mark.parametrize('axis', [2, -3, (0, 5)])
def test_axis_out_of_range_is_invalid(axis):
    msg = re.escape('Invalid operation is performed in: Sum (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        F.sum(numpy.zeros((2, 3)), axis=axis)


def test_duplicate_axis_is_an_error():
    with pytest.raises(ValueError, match='duplicate'):
        F.sum(numpy.zeros((2, 3)), axis=(1, -1))


@pytest.mark.parametrize('axis', [1.0, (0, 1.5), True, [0], (1, 'x')])
def test_non_integer_axis_is_a_type_error(axis):
    # A list is refused too, as in Chainer; the type is checked before the range.
    with pytest.raises(TypeError, match='axis'):
        F.sum(numpy.zeros((2,)), axis=axis)


@pytest.mark.parametrize('f', [F.sum, F.prod, F.max, F.min, F.logsumexp])
def test_reductions_refuse_a_list_axis(f):
    with pytest.raises(TypeError, match=r'axis must be None, an int or a tuple of ints'):
        f(numpy.ones((2, 3)), [0])
    with pytest.raises(TypeError, match='axis'):
        f(numpy.ones(1), (1, 'x'))


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.int64, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    # NumPy would sum int32 into int64: the dtype would not be preserved.
    msg = re.escape('Invalid operation is performed in: Sum (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        F.sum(numpy.ones((2, 3), dtype))
