"""The FunctionNodes the distributions define: forward values, first and second derivatives
(numerically, in float64), dtypes."""
import warnings

import numpy as np
import pytest
from scipy import special, stats

import chainlite
from chainlite import testing
from chainlite.distributions import bernoulli
from chainlite.distributions import laplace
from chainlite.distributions import multivariate_normal
from chainlite.distributions import utils


@pytest.mark.parametrize('logit_shape,x_shape', [((2, 3), (2, 3)), ((), ()), ((), (3,))])
@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_bernoulli_log_prob(logit_shape, x_shape, dtype):
    rng = np.random.default_rng(0)
    logit = rng.normal(size=logit_shape) * 3
    x = rng.integers(0, 2, x_shape).astype(np.float64)
    y = bernoulli._bernoulli_log_prob(logit.astype(dtype), x)
    assert y.dtype == dtype and y.shape == np.broadcast_shapes(logit_shape, x_shape)
    tol = 1e-2 if dtype == np.float16 else 1e-5
    np.testing.assert_allclose(y.array, stats.bernoulli(special.expit(logit)).logpmf(x),
                               rtol=tol, atol=tol)
    testing.check_grads(lambda lg: bernoulli._bernoulli_log_prob(lg, x), (logit,))


def test_bernoulli_log_prob_large_logits_stay_finite():
    logit = np.array([-800.0, 800.0])
    y = bernoulli._bernoulli_log_prob(logit, np.array([0.0, 1.0]))
    np.testing.assert_allclose(y.array, [0.0, 0.0])
    y = bernoulli._bernoulli_log_prob(logit, np.array([1.0, 0.0]))
    np.testing.assert_allclose(y.array, [-800.0, -800.0])


def test_bernoulli_log_prob_infinite_logit_backward_runs():
    logit = chainlite.Variable(np.full(3, np.inf))
    with np.errstate(invalid='ignore', divide='ignore'):
        y = bernoulli._bernoulli_log_prob(logit, np.array([1.0, 0.0, 1.0]))
        y.grad = np.ones(3)
        y.backward()
    assert np.isnan(logit.grad).all()


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_laplace_cdf_icdf(dtype):
    x = np.array([-2.5, -0.7, 0.4, 1.9], dtype)
    y = laplace._laplace_cdf(x)
    assert y.dtype == dtype
    np.testing.assert_allclose(y.array, stats.laplace.cdf(x), rtol=1e-6)
    q = np.array([0.05, 0.3, 0.6, 0.97], dtype)
    z = laplace._laplace_icdf(q)
    assert z.dtype == dtype
    np.testing.assert_allclose(z.array, stats.laplace.ppf(q), rtol=1e-5)
    # Away from the kink at 0 (cdf) and 0.5 (icdf).
    testing.check_grads(laplace._laplace_cdf, (x.astype(np.float64),))
    testing.check_grads(laplace._laplace_icdf, (q.astype(np.float64),))


@pytest.mark.parametrize('lower', [True, False])
@pytest.mark.parametrize('shape', [(3, 3), (2, 4, 4), (1, 1), (0, 0)])
def test_triangular_inv(lower, shape):
    rng = np.random.default_rng(1)
    x = np.tril(rng.normal(size=shape)) + 3 * np.eye(shape[-1])
    if not lower:
        x = np.swapaxes(x, -1, -2)
    y = multivariate_normal._triangular_inv(x, lower=lower)
    np.testing.assert_allclose(y.array, np.linalg.inv(x) if shape[-1] else x, atol=1e-12)
    if shape[-1]:
        mask = np.tril(np.ones(shape[-2:], bool))
        mask = mask if lower else mask.T
        # Only the triangle is a free input: perturb only there.
        testing.check_grads(
            lambda t: multivariate_normal._triangular_inv(
                chainlite.functions.where(np.broadcast_to(mask, shape), t, np.zeros(shape)),
                lower=lower), (x,))
    with pytest.raises(ValueError, match='square'):
        multivariate_normal._triangular_inv(np.ones((2, 3)))


def test_modified_xlogx():
    x = np.array([0.0, 0.3, 1.0, 2.5])
    y = utils._modified_xlogx(x)
    np.testing.assert_allclose(y.array, [0.0, 0.3 * np.log(0.3), 0.0, 2.5 * np.log(2.5)])
    testing.check_grads(utils._modified_xlogx, (x[1:],))
    v = chainlite.Variable(x)
    z = utils._modified_xlogx(v)
    z.grad = np.ones(4)
    with pytest.warns(RuntimeWarning, match='x == 0'):
        z.backward()
    np.testing.assert_allclose(v.grad, [0.0, 1 + np.log(0.3), 1.0, 1 + np.log(2.5)])
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        w = chainlite.Variable(x[1:])
        out = utils._modified_xlogx(w)
        out.grad = np.ones(3)
        out.backward()
    assert utils._modified_xlogx(x.astype(np.float32)).dtype == np.float32
