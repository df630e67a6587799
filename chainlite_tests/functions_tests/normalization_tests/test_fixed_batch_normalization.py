"""fixed_batch_normalization: given statistics, gradients to all five inputs."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.normalization.fixed_batch_normalization import (
    fixed_batch_normalization)
from chainlite.utils import type_check

CASES = [((5, 3), (3,), None), ((4, 3, 2, 2), (3,), None), ((2, 3, 2, 3), (3, 2), None),
         ((3, 2, 4), (4,), (0, 1)), ((3, 4, 2), (4, 2), 0)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 2e-2, 'rtol': 2e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-4},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _arrays(shape, cshape, dtype=numpy.float64, seed=0):
    rs = numpy.random.RandomState(seed)
    x = rs.uniform(-1, 1, shape).astype(dtype)
    gamma = rs.uniform(0.5, 1.5, cshape).astype(dtype)
    beta = rs.uniform(-1, 1, cshape).astype(dtype)
    mean = rs.uniform(-0.5, 0.5, cshape).astype(dtype)
    var = rs.uniform(0.5, 1.5, cshape).astype(dtype)  # positive, away from sqrt's kink at 0
    return x, gamma, beta, mean, var


def _kept(shape, cshape, axis):
    if axis is None:
        axis = (0,) + tuple(range(len(cshape) + 1, len(shape)))
    axis = (axis,) if isinstance(axis, int) else axis
    return tuple(1 if i in axis else n for i, n in enumerate(shape))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, cshape, axis', CASES)
def test_forward(shape, cshape, axis, dtype):
    x, gamma, beta, mean, var = _arrays(shape, cshape, dtype)
    y = fixed_batch_normalization(chainlite.Variable(x), gamma, beta, mean, var, eps=1e-3,
                                  axis=axis)
    k = _kept(shape, cshape, axis)
    f = [a.astype(numpy.float64).reshape(k) for a in (gamma, beta, mean, var)]
    expected = f[0] * (x.astype(numpy.float64) - f[2]) / numpy.sqrt(f[3] + 1e-3) + f[1]
    assert y.dtype == dtype and y.shape == shape
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('shape, cshape, axis', CASES)
def test_backward(shape, cshape, axis):
    inputs = _arrays(shape, cshape)
    gy = numpy.random.RandomState(1).uniform(-1, 1, shape)
    gradient_check.check_backward(
        lambda *a: fixed_batch_normalization(*a, axis=axis), inputs, gy)


@pytest.mark.parametrize('shape, cshape, axis', CASES)
def test_double_backward(shape, cshape, axis):
    inputs = _arrays(shape, cshape)
    rs = numpy.random.RandomState(1)
    gy = rs.uniform(-1, 1, shape)
    ggs = tuple(rs.uniform(-1, 1, a.shape) for a in inputs)
    gradient_check.check_double_backward(
        lambda *a: fixed_batch_normalization(*a, axis=axis), inputs, gy, ggs,
        atol=1e-4, rtol=1e-4)


def test_gradient_of_x_only():
    x, gamma, beta, mean, var = _arrays((4, 3), (3,))
    gy = numpy.random.RandomState(2).uniform(-1, 1, x.shape)
    gradient_check.check_backward(
        lambda x: fixed_batch_normalization(x, gamma, beta, mean, var), x, gy)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_dtype_kept_in_forward_and_backward(dtype):
    vs = [chainlite.Variable(a) for a in _arrays((4, 3, 2), (3,), dtype)]
    y = fixed_batch_normalization(*vs)
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert all(v.grad.dtype == dtype for v in vs)


def test_arrays_and_variables_accepted():
    inputs = _arrays((5, 3), (3,))
    y1 = fixed_batch_normalization(*inputs)
    y2 = fixed_batch_normalization(*[chainlite.Variable(a) for a in inputs])
    assert isinstance(y1, chainlite.Variable)
    numpy.testing.assert_array_equal(y1.array, y2.array)


MSG = re.escape('Invalid operation is performed in: FixedBatchNormalization (Forward)')


@pytest.mark.parametrize('i, bad', [
    (0, numpy.ones((4, 3), numpy.int32)), (1, numpy.ones(3, numpy.float32)),
    (3, numpy.ones(2)), (4, numpy.ones(3, numpy.float32)), (0, numpy.ones((4, 2)))])
def test_invalid_inputs(i, bad):
    inputs = list(_arrays((4, 3), (3,)))
    inputs[i] = bad
    with pytest.raises(type_check.InvalidType, match=MSG):
        fixed_batch_normalization(*inputs)


def test_axis_out_of_range():
    with pytest.raises(type_check.InvalidType, match=MSG):
        fixed_batch_normalization(*_arrays((4, 3), (3,)), axis=2)
