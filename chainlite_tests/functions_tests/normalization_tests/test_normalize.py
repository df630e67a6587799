"""normalize: x divided by its L2 norm (plus eps) along the given axes."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.normalization.normalize import normalize
from chainlite.utils import type_check

CASES = [((3, 4), 1), ((3, 4), 0), ((3, 4), -1), ((2, 3, 4), 1), ((2, 3, 4), (1, 2)),
         ((2, 3, 4), (0, -1)), ((5,), 0)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 2e-3, 'rtol': 2e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _x(shape, dtype=numpy.float64, seed=0):
    # |x| >= 0.5 elementwise keeps every norm far from 0, where the gradient is singular.
    rs = numpy.random.RandomState(seed)
    return (rs.uniform(0.5, 1, shape) * rs.choice([-1, 1], shape)).astype(dtype)


def _np_axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, axis', CASES)
def test_forward(shape, axis, dtype):
    x = _x(shape, dtype)
    y = normalize(chainlite.Variable(x), eps=1e-3, axis=axis)
    x64 = x.astype(numpy.float64)
    expected = x64 / (numpy.sqrt((x64 ** 2).sum(axis=axis, keepdims=True)) + 1e-3)
    assert y.dtype == dtype and y.shape == shape
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


def test_defaults_and_zero_vector():
    x = numpy.array([[3.0, 4.0], [0.0, 0.0]])
    numpy.testing.assert_allclose(normalize(x).array, [[3 / 5.00001, 4 / 5.00001], [0, 0]])


@pytest.mark.parametrize('shape, axis', CASES)
def test_backward(shape, axis):
    gradient_check.check_backward(lambda x: normalize(x, axis=axis), _x(shape),
                                  _x(shape, seed=1))


@pytest.mark.parametrize('shape, axis', CASES)
def test_double_backward(shape, axis):
    gradient_check.check_double_backward(lambda x: normalize(x, axis=axis), _x(shape),
                                         _x(shape, seed=1), _x(shape, seed=2),
                                         atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize('dtype', DTYPES)
def test_zero_vector_gradient_is_gy_over_eps(dtype):
    # At a zero vector the norm has no derivative; as in Chainer the gradient is gy / eps
    # there (the term through the norm is dropped), and finite to every order.
    x = chainlite.Variable(numpy.array([[0.0, 0.0, 0.0], [1.0, -2.0, 2.0]], dtype))
    gy = numpy.array([[0.5, -1.0, 0.25], [1.0, 1.0, 1.0]], dtype)
    gx, = chainlite.grad([normalize(x, eps=0.5)], [x], [gy], enable_double_backprop=True)
    assert gx.dtype == dtype
    numpy.testing.assert_allclose(gx.array[0], gy[0] / 0.5)
    x64 = x.array[1].astype(numpy.float64)
    d = 3.0 + 0.5
    expected = gy[1] / d - x64 * (gy[1] @ x64) / (3.0 * d * d)
    numpy.testing.assert_allclose(gx.array[1], expected, **TOL[dtype])
    ggx, = chainlite.grad([gx], [x], [numpy.ones_like(gy)])
    assert numpy.isfinite(ggx.array).all()


def test_backward_with_a_zero_vector():
    # The gradient is continuous there, so the numerical check holds across it.
    x = numpy.array([[0.0, 0.0, 0.0], [0.7, -0.6, 0.9]])
    gradient_check.check_backward(lambda x: normalize(x, eps=0.1), x, _x((2, 3), seed=1),
                                  eps=1e-4, atol=1e-2, rtol=1e-2)
    # The gradient is not differentiable at the zero vector: the second order away from it.
    gradient_check.check_double_backward(
        lambda x: normalize(x, eps=0.1), x[1:], _x((1, 3), seed=1), _x((1, 3), seed=2),
        atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_dtype_kept_in_forward_and_backward(dtype):
    x = chainlite.Variable(_x((3, 4), dtype))
    y = normalize(x)
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == dtype


def test_array_input():
    x = _x((3, 4))
    y = normalize(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, normalize(chainlite.Variable(x)).array)


MSG = re.escape('Invalid operation is performed in: NormalizeL2 (Forward)')


@pytest.mark.parametrize('x', [numpy.ones((2, 3), numpy.int32), numpy.ones((2, 3), bool)])
def test_non_float_input(x):
    with pytest.raises(type_check.InvalidType, match=MSG):
        normalize(x)


@pytest.mark.parametrize('shape, axis', [((3,), 1), ((), 1), ((2, 3), (0, 2)), ((2, 3), -3)])
def test_axis_out_of_range(shape, axis):
    with pytest.raises(type_check.InvalidType, match=MSG):
        normalize(numpy.ones(shape), axis=axis)


def test_duplicate_axis():
    with pytest.raises(ValueError, match='duplicate'):
        normalize(numpy.ones((2, 3)), axis=(1, -1))
