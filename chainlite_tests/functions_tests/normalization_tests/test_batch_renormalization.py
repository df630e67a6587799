"""batch_renormalization: against the formula with r and d, running statistics, gradients."""
import warnings

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite.testing import gradients


def _inputs(shape=(5, 3, 2), dtype=numpy.float64, seed=0):
    rng = numpy.random.RandomState(seed)
    x = rng.uniform(-3, 3, shape).astype(dtype)
    gamma = rng.uniform(0.5, 1.5, shape[1:2]).astype(dtype)
    beta = rng.uniform(-1, 1, shape[1:2]).astype(dtype)
    mean = rng.uniform(-1, 1, shape[1:2]).astype(dtype)
    var = rng.uniform(0.5, 2, shape[1:2]).astype(dtype)
    return x, gamma, beta, mean, var


def _expected(x, gamma, beta, mean, var, rmax, dmax, eps):
    x = x.astype(numpy.float64)
    axis = (0,) + tuple(range(2, x.ndim))
    ex = (slice(None),) + (None,) * (x.ndim - 2)
    mu, sd = x.mean(axis), numpy.sqrt(x.var(axis) + eps)
    sigma = numpy.sqrt(var + eps)
    r = numpy.clip(sd / sigma, 1 / rmax, rmax)
    d = numpy.clip((mu - mean) / sigma, -dmax, dmax)
    xhat = (x - mu[ex]) / sd[ex] * r[ex] + d[ex]
    return gamma[ex] * xhat + beta[ex]


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize('shape', [(5, 3), (5, 3, 2), (4, 3, 2, 2)])
@pytest.mark.parametrize('rmax, dmax', [(1, 0), (1.5, 0.5), (3, 5)])
def test_forward(shape, dtype, rmax, dmax):
    x, gamma, beta, mean, var = _inputs(shape, dtype)
    y = F.batch_renormalization(x, gamma, beta, rmax, dmax, 1e-3, mean, var)
    assert y.dtype == dtype and y.shape == shape
    tol = 3e-2 if dtype == numpy.float16 else 1e-5
    numpy.testing.assert_allclose(
        y.array, _expected(x, gamma, beta, mean, var, rmax, dmax, 1e-3), rtol=tol, atol=tol)


def test_running_statistics_updated_only_when_asked():
    x, gamma, beta, mean, var = _inputs()
    mean0, var0 = mean.copy(), var.copy()
    F.batch_renormalization(x, gamma, beta, 2, 1, running_mean=mean, running_var=var)
    numpy.testing.assert_array_equal(mean, mean0)
    F.batch_renormalization(x, gamma, beta, 2, 1, running_mean=mean, running_var=var,
                            decay=0.8, update_statistics=True)
    m = x.size // 3
    numpy.testing.assert_allclose(mean, 0.8 * mean0 + 0.2 * x.mean(axis=(0, 2)))
    numpy.testing.assert_allclose(var, 0.8 * var0 + 0.2 * x.var(axis=(0, 2)) * m / (m - 1))


def test_gradients_treat_r_and_d_as_constants():
    x, gamma, beta, mean, var = _inputs()
    # r and d computed once from x are constants of the graph; with them fixed, the function
    # is batch normalization with scale gamma * r and shift gamma * d + beta.
    axis = (0, 2)
    sd = numpy.sqrt(x.var(axis) + 2e-5)
    sigma = numpy.sqrt(var + 2e-5)
    r = numpy.clip(sd / sigma, 1 / 1.5, 1.5)
    d = numpy.clip((x.mean(axis) - mean) / sigma, -0.5, 0.5)
    gx, gg, gb = (chainlite.Variable(a) for a in (x, gamma, beta))
    y = F.batch_renormalization(gx, gg, gb, 1.5, 0.5, running_mean=mean, running_var=var)
    gy = numpy.random.RandomState(3).randn(*x.shape)
    y.grad = gy
    y.backward()
    rx, rg, rb = (chainlite.Variable(a) for a in (x, gamma, beta))
    ref = F.batch_normalization(rx, rg * r, rg * d + rb)
    ref.grad = gy
    ref.backward()
    for a, b in ((gx, rx), (gg, rg), (gb, rb)):
        numpy.testing.assert_allclose(a.grad, b.grad, rtol=1e-10, atol=1e-12)


def test_second_order_with_inactive_clipping():
    # With rmax = 1 and dmax = 0, r = 1 and d = 0 whatever x is: numerical derivatives of the
    # whole function are then those of batch normalization, to any order.
    x, gamma, beta, mean, var = _inputs()
    gradients.check_grads(lambda x, g, b: F.batch_renormalization(
        x, g, b, 1, 0, running_mean=mean, running_var=var), (x, gamma, beta))


def test_errors():
    x, gamma, beta, mean, var = _inputs()
    with pytest.raises(TypeError, match='running_mean'):
        F.batch_renormalization(x, gamma, beta, 1, 0, running_var=var)
    with pytest.raises(TypeError, match='running_var'):
        F.batch_renormalization(x, gamma, beta, 1, 0, running_mean=mean)
    with pytest.raises(chainlite.utils.type_check.InvalidType):
        F.batch_renormalization(x, gamma[:2], beta[:2], 1, 0, running_mean=mean,
                                running_var=var)


def test_fixed_batch_renormalization_is_deprecated_fixed_batch_normalization():
    x, gamma, beta, mean, var = _inputs()
    with pytest.warns(DeprecationWarning):
        y = F.fixed_batch_renormalization(x, gamma, beta, mean, var)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        ref = F.fixed_batch_normalization(x, gamma, beta, mean, var)
    numpy.testing.assert_allclose(y.array, ref.array)
