"""batch_normalization: batch statistics, running averages updated in place, fused gradients."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.normalization.batch_normalization import batch_normalization
from chainlite.utils import type_check

# (x shape, channel shape, axis)
CASES = [((5, 3), (3,), None), ((4, 3, 2, 2), (3,), None), ((3, 2, 4), (2,), None),
         ((2, 3, 2, 3), (3, 2), None), ((3, 2, 4), (4,), (0, 1)), ((3, 4, 2), (4, 2), 0),
         ((2, 3, 4), (2, 4), -2)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 2e-2, 'rtol': 2e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-4},
       numpy.float64: {'atol': 1e-10, 'rtol': 1e-10}}


def _arrays(shape, cshape, dtype=numpy.float64, seed=0):
    rs = numpy.random.RandomState(seed)
    x = rs.uniform(-1, 1, shape).astype(dtype)
    gamma = rs.uniform(0.5, 1.5, cshape).astype(dtype)
    beta = rs.uniform(-1, 1, cshape).astype(dtype)
    return x, gamma, beta


def _axis_of(shape, cshape, axis):
    if axis is None:
        return (0,) + tuple(range(len(cshape) + 1, len(shape)))
    axis = (axis,) if isinstance(axis, int) else axis
    return tuple(sorted(a % len(shape) for a in axis))


def _reference(x, gamma, beta, eps, axis):
    x = x.astype(numpy.float64)
    kept = tuple(1 if i in axis else n for i, n in enumerate(x.shape))
    mean = x.mean(axis=axis, keepdims=True)
    var = x.var(axis=axis, keepdims=True)
    y = gamma.reshape(kept) * (x - mean) / numpy.sqrt(var + eps) + beta.reshape(kept)
    return y, mean.reshape(gamma.shape), var.reshape(gamma.shape)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, cshape, axis', CASES)
def test_forward(shape, cshape, axis, dtype):
    x, gamma, beta = _arrays(shape, cshape, dtype)
    y = batch_normalization(chainlite.Variable(x), gamma, beta, eps=1e-3, axis=axis)
    expected, _, _ = _reference(x, gamma, beta, 1e-3, _axis_of(shape, cshape, axis))
    assert y.dtype == dtype
    assert y.shape == shape
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('dtype', DTYPES)
def test_running_statistics_updated_in_place(dtype):
    shape, cshape = (4, 3, 2, 2), (3,)
    x, gamma, beta = _arrays(shape, cshape, dtype)
    running_mean = numpy.full(cshape, 0.5, dtype)
    running_var = numpy.full(cshape, 2.0, dtype)
    rm, rv = running_mean, running_var
    batch_normalization(x, gamma, beta, running_mean=rm, running_var=rv, decay=0.8)
    assert rm is running_mean and rv is running_var
    _, mean, var = _reference(x, gamma, beta, 2e-5, (0, 2, 3))
    m = 16  # values per channel: Chainer keeps the unbiased variance, var * m / (m - 1)
    numpy.testing.assert_allclose(rm, 0.8 * 0.5 + 0.2 * mean, **TOL[dtype])
    numpy.testing.assert_allclose(rv, 0.8 * 2.0 + 0.2 * var * m / (m - 1), **TOL[dtype])
    assert rm.dtype == dtype and rv.dtype == dtype


def test_running_mean_alone():
    x, gamma, beta = _arrays((5, 3), (3,))
    rm = numpy.zeros(3)
    batch_normalization(x, gamma, beta, running_mean=rm)
    numpy.testing.assert_allclose(rm, 0.1 * x.mean(axis=0))


def test_batch_statistics_also_in_test_mode():
    # The function always uses the batch statistics; choosing the running ones is the link's job.
    x, gamma, beta = _arrays((5, 3), (3,))
    with chainlite.using_config('train', False):
        y = batch_normalization(x, gamma, beta)
    numpy.testing.assert_allclose(y.array, _reference(x, gamma, beta, 2e-5, (0,))[0])


@pytest.mark.parametrize('shape, cshape, axis', CASES)
def test_backward(shape, cshape, axis):
    x, gamma, beta = _arrays(shape, cshape)
    gy = numpy.random.RandomState(1).uniform(-1, 1, shape)
    gradient_check.check_backward(
        lambda x, g, b: batch_normalization(x, g, b, axis=axis), (x, gamma, beta), gy,
        atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize('shape, cshape, axis', CASES)
def test_double_backward(shape, cshape, axis):
    x, gamma, beta = _arrays(shape, cshape)
    rs = numpy.random.RandomState(1)
    gy = rs.uniform(-1, 1, shape)
    ggs = (rs.uniform(-1, 1, shape), rs.uniform(-1, 1, cshape), rs.uniform(-1, 1, cshape))
    gradient_check.check_double_backward(
        lambda x, g, b: batch_normalization(x, g, b, axis=axis), (x, gamma, beta), gy, ggs,
        atol=1e-4, rtol=1e-4)


def test_double_backward_of_one_input_at_a_time():
    # Unused first-order outputs leave None upstream gradients in the second-order pass.
    x, gamma, beta = _arrays((4, 3, 2), (3,))
    rs = numpy.random.RandomState(2)
    gy = rs.uniform(-1, 1, x.shape)
    gradient_check.check_double_backward(
        lambda x: batch_normalization(x, gamma, beta), x, gy, rs.uniform(-1, 1, x.shape),
        atol=1e-4, rtol=1e-4)
    gradient_check.check_double_backward(
        lambda g: batch_normalization(x, g, beta), gamma, gy, rs.uniform(-1, 1, 3),
        atol=1e-4, rtol=1e-4)
    # Through a nonlinear loss, so second-order terms from gx, ggamma and gbeta all flow.
    gradient_check.check_double_backward(
        lambda x, g, b: batch_normalization(x, g, b) ** 2, (x, gamma, beta), gy,
        (rs.uniform(-1, 1, x.shape), rs.uniform(-1, 1, 3), rs.uniform(-1, 1, 3)),
        atol=1e-4, rtol=1e-4)


def test_gradient_against_formula():
    x, gamma, beta = _arrays((6, 4), (4,))
    gy = numpy.random.RandomState(3).uniform(-1, 1, x.shape)
    xv, gv, bv = (chainlite.Variable(a) for a in (x, gamma, beta))
    y = batch_normalization(xv, gv, bv, eps=1e-3)
    y.grad = gy
    y.backward()
    m = x.shape[0]
    inv_std = 1 / numpy.sqrt(x.var(axis=0) + 1e-3)
    x_hat = (x - x.mean(axis=0)) * inv_std
    ggamma, gbeta = (gy * x_hat).sum(axis=0), gy.sum(axis=0)
    numpy.testing.assert_allclose(gv.grad, ggamma)
    numpy.testing.assert_allclose(bv.grad, gbeta)
    numpy.testing.assert_allclose(xv.grad, gamma * inv_std * (gy - (x_hat * ggamma + gbeta) / m))


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_dtype_kept_in_forward_and_backward(dtype):
    x, gamma, beta = (chainlite.Variable(a) for a in _arrays((4, 3, 2, 2), (3,), dtype))
    y = batch_normalization(x, gamma, beta)
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == dtype and gamma.grad.dtype == dtype and beta.grad.dtype == dtype


def test_arrays_and_variables_accepted():
    x, gamma, beta = _arrays((5, 3), (3,))
    y1 = batch_normalization(x, gamma, beta)
    y2 = batch_normalization(chainlite.Variable(x), chainlite.Variable(gamma), beta)
    assert isinstance(y1, chainlite.Variable)
    numpy.testing.assert_array_equal(y1.array, y2.array)


MSG = re.escape('Invalid operation is performed in: BatchNormalization (Forward)')


@pytest.mark.parametrize('x, gamma, beta', [
    (numpy.ones((4, 3), numpy.int32), numpy.ones(3), numpy.ones(3)),       # int x
    (numpy.ones((4, 3)), numpy.ones(3, numpy.float32), numpy.ones(3)),     # gamma dtype
    (numpy.ones((4, 3)), numpy.ones(3), numpy.ones(3, numpy.float32)),     # beta dtype
    (numpy.ones((4, 3)), numpy.ones(2), numpy.ones(2)),                    # channels
    (numpy.ones((4, 3)), numpy.ones(3), numpy.ones(2)),                    # beta shape
    (numpy.ones((4,)), numpy.ones(4), numpy.ones(4)),                      # no batch axis
])
def test_invalid_inputs(x, gamma, beta):
    with pytest.raises(type_check.InvalidType, match=MSG):
        batch_normalization(x, gamma, beta)


def test_invalid_running_statistics():
    with pytest.raises(type_check.InvalidType, match=MSG):
        batch_normalization(numpy.ones((4, 3)), numpy.ones(3), numpy.ones(3),
                            running_var=numpy.ones(2))


@pytest.mark.parametrize('axis', [3, -4, (0, 3)])
def test_axis_out_of_range(axis):
    with pytest.raises(type_check.InvalidType, match=MSG):
        batch_normalization(numpy.ones((2, 3, 4)), numpy.ones(3), numpy.ones(3), axis=axis)


@pytest.mark.parametrize('x_shape, gamma_shape, axis, match', [
    ((1, 3), (3,), None, 'a batch of one sample'),
    ((1, 3, 1, 1), (3,), None, 'a batch of one sample'),
    ((2, 3, 1), (2, 3), 2, r'every axis .* has size 1'),
])
def test_statistics_over_single_values_warn(x_shape, gamma_shape, axis, match):
    # As Chainer warns: each statistic is over one value, so the output is beta whatever x is.
    x = numpy.random.RandomState(0).uniform(-1, 1, x_shape)
    gamma, beta = numpy.ones(gamma_shape), numpy.full(gamma_shape, 0.5)
    with pytest.warns(UserWarning, match=match):
        y = batch_normalization(x, gamma, beta, axis=axis)
    numpy.testing.assert_array_equal(y.array, numpy.full(x_shape, 0.5))


def test_batches_of_several_values_do_not_warn():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        batch_normalization(numpy.ones((1, 3, 2, 1)), numpy.ones(3), numpy.zeros(3))
