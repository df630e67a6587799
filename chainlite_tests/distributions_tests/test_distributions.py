"""chainlite.distributions against scipy.stats, with numerical gradients of every statistic.

Each case builds a distribution from float64 parameters (batch shape (2, 3)), its SciPy
counterpart, and a valid realization ``x``. Values are compared with SciPy; gradients of
``log_prob`` and of the other differentiable statistics with respect to the parameters are
checked numerically to first and second order.
"""
import numpy as np
import pytest
from scipy import special, stats

import chainlite
import chainlite.functions as F
from chainlite import distributions as D
from chainlite import testing

SHAPE = (2, 3)


def _rng(seed=0):
    return np.random.default_rng(seed)


def _u(lo, hi, shape=SHAPE, seed=0):
    return _rng(seed).uniform(lo, hi, shape)


def _simplex(shape, seed=0):
    p = np.exp(_rng(seed).normal(size=shape))
    return p / p.sum(axis=-1, keepdims=True)


# name -> (class, params, scipy frozen distribution, x, methods compared with scipy)
def _cases():
    loc, scale = _u(-1, 1), _u(0.5, 2, seed=1)
    a, b = _u(0.6, 3), _u(0.6, 3, seed=1)
    k, theta = _u(1.5, 4), _u(0.5, 2, seed=1)
    p = _u(0.1, 0.9)
    lam = _u(0.5, 3)
    alpha = _u(2.5, 4, seed=1)
    yield ('Normal', D.Normal, {'loc': loc, 'scale': scale}, stats.norm(loc, scale),
           _u(-2, 2, seed=3), ['log_prob', 'prob', 'cdf', 'log_cdf', 'survival_function',
                               'log_survival_function', 'icdf', 'mean', 'variance', 'stddev',
                               'entropy'])
    yield ('Beta', D.Beta, {'a': a, 'b': b}, stats.beta(a, b), _u(0.1, 0.9, seed=3),
           ['log_prob', 'mean', 'variance', 'stddev', 'entropy'])
    yield ('Cauchy', D.Cauchy, {'loc': loc, 'scale': scale}, stats.cauchy(loc, scale),
           _u(-3, 3, seed=3), ['log_prob', 'cdf', 'icdf', 'entropy'])
    yield ('Chisquare', D.Chisquare, {'k': k}, stats.chi2(k), _u(0.5, 4, seed=3),
           ['log_prob', 'mean', 'variance', 'stddev', 'entropy'])
    yield ('Exponential', D.Exponential, {'lam': lam}, stats.expon(scale=1 / lam),
           _u(0.1, 3, seed=3), ['log_prob', 'cdf', 'survival_function',
                                'log_survival_function', 'icdf', 'mean', 'variance',
                                'stddev', 'entropy'])
    yield ('Gamma', D.Gamma, {'k': k, 'theta': theta}, stats.gamma(k, scale=theta),
           _u(0.2, 4, seed=3), ['log_prob', 'mean', 'variance', 'stddev', 'entropy'])
    yield ('Gumbel', D.Gumbel, {'loc': loc, 'scale': scale},
           stats.gumbel_r(loc, scale), _u(-2, 3, seed=3),
           ['log_prob', 'cdf', 'log_cdf', 'survival_function', 'icdf', 'mean', 'variance',
            'stddev', 'entropy'])
    yield ('Laplace', D.Laplace, {'loc': loc, 'scale': scale},
           stats.laplace(loc, scale), _u(-3, 3, seed=3),
           ['log_prob', 'prob', 'cdf', 'icdf', 'mean', 'variance', 'stddev', 'entropy'])
    yield ('LogNormal', D.LogNormal, {'mu': loc, 'sigma': scale},
           stats.lognorm(scale, scale=np.exp(loc)), _u(0.2, 3, seed=3),
           ['log_prob', 'cdf', 'icdf', 'mean', 'variance', 'stddev', 'entropy'])
    yield ('Pareto', D.Pareto, {'scale': scale, 'alpha': alpha},
           stats.pareto(alpha, scale=scale), scale + _u(0.1, 2, seed=3),
           ['log_prob', 'cdf', 'icdf', 'mean', 'variance', 'stddev', 'entropy'])
    yield ('Uniform', D.Uniform, {'low': loc, 'high': loc + scale},
           stats.uniform(loc, scale), loc + scale * _u(0.05, 0.95, seed=3),
           ['log_prob', 'cdf', 'icdf', 'mean', 'variance', 'stddev', 'entropy'])
    yield ('Bernoulli', D.Bernoulli, {'p': p}, stats.bernoulli(p),
           (_u(0, 1, seed=3) > 0.5).astype(np.float64),
           ['log_prob', 'prob', 'mean', 'variance', 'stddev', 'entropy'])
    yield ('Geometric', D.Geometric, {'p': p}, stats.geom(p),
           np.floor(_u(1, 6, seed=3)), ['log_prob', 'mean', 'variance', 'stddev',
                                        'entropy'])
    yield ('Poisson', D.Poisson, {'lam': lam}, stats.poisson(lam),
           np.floor(_u(0, 6, seed=3)), ['log_prob', 'mean', 'variance', 'stddev'])


CASES = {c[0]: c for c in _cases()}
_SCIPY_NAME = {'log_prob': 'logpdf', 'prob': 'pdf', 'cdf': 'cdf', 'log_cdf': 'logcdf',
               'survival_function': 'sf', 'log_survival_function': 'logsf', 'icdf': 'ppf',
               'mean': 'mean', 'variance': 'var', 'stddev': 'std', 'entropy': 'entropy'}
_DISCRETE = ('Bernoulli', 'Geometric', 'Poisson')


def _scipy_value(name, ref, method, x):
    scipy_name = _SCIPY_NAME[method]
    if name in _DISCRETE:
        scipy_name = {'logpdf': 'logpmf', 'pdf': 'pmf'}.get(scipy_name, scipy_name)
    f = getattr(ref, scipy_name)
    if method == 'icdf':
        return f(_u(0.05, 0.95, seed=5))
    if method in ('log_prob', 'prob', 'cdf', 'log_cdf', 'survival_function',
                  'log_survival_function'):
        return f(x)
    return f()


def _our_value(dist, method, x):
    if method == 'icdf':
        return dist.icdf(_u(0.05, 0.95, seed=5))
    member = getattr(dist, method)
    return member(x) if callable(member) else member


@pytest.mark.parametrize('name', sorted(CASES))
def test_values_match_scipy(name):
    _, cls, params, ref, x, methods = CASES[name]
    dist = cls(**params)
    assert dist.batch_shape == SHAPE and dist.event_shape == ()
    for method in methods:
        got = _our_value(dist, method, x)
        assert isinstance(got, chainlite.Variable), method
        assert got.dtype == np.float64, method
        np.testing.assert_allclose(got.array, _scipy_value(name, ref, method, x),
                                   rtol=1e-6, atol=1e-8, err_msg='%s.%s' % (name, method))


@pytest.mark.parametrize('name', sorted(CASES))
@pytest.mark.parametrize('dtype', [np.float16, np.float32])
def test_dtype_is_kept(name, dtype):
    _, cls, params, _, x, methods = CASES[name]
    dist = cls(**{k: v.astype(dtype) for k, v in params.items()})
    with np.errstate(all='ignore'):
        assert dist.log_prob(x.astype(dtype)).dtype == dtype
        for method in methods:
            if method not in ('icdf',):
                assert _our_value(dist, method, x.astype(dtype)).dtype == dtype, method
        assert dist.sample(4).dtype == dtype


@pytest.mark.parametrize('name', sorted(CASES))
def test_log_prob_gradients(name):
    # First and second derivatives of log_prob with respect to every float parameter.
    _, cls, params, _, x, _ = CASES[name]
    keys = sorted(params)
    if name == 'Pareto':
        keys = ['alpha']   # log_prob is discontinuous in scale at x == scale; stay away
    fixed = {k: v for k, v in params.items() if k not in keys}

    def f(*values):
        return cls(**dict(fixed, **dict(zip(keys, values)))).log_prob(x)

    testing.check_grads(f, tuple(params[k] for k in keys), order=2)


def _differentiable_stats(name):
    methods = CASES[name][5]
    return [m for m in methods if m not in ('log_prob',)]


@pytest.mark.parametrize('name', sorted(CASES))
def test_statistic_gradients(name):
    _, cls, params, _, x, _ = CASES[name]
    keys = sorted(params)
    for method in _differentiable_stats(name):
        if name == 'Pareto' and method == 'cdf':
            continue  # 0 below scale: the kink at x == scale
        if name == 'Laplace' and method in ('prob', 'cdf', 'icdf'):
            # |x - loc| has a kink at loc; x is drawn away from it, so check first order
            order = 1
        else:
            order = 2

        def f(*values, method=method):
            return _our_value(cls(**dict(zip(keys, values))), method, x)

        testing.check_grads(f, tuple(params[k] for k in keys), order=order)


# Reparameterized samplers: a sample is a differentiable function of the parameters.
REPARAMETERIZED = {
    'Normal': ('loc', 'scale'), 'Cauchy': ('loc', 'scale'), 'Exponential': ('lam',),
    'Gamma': ('theta',), 'Gumbel': ('loc', 'scale'), 'Laplace': ('loc', 'scale'),
    'LogNormal': ('mu', 'sigma'), 'Pareto': ('scale',), 'Uniform': ('low', 'high'),
}


@pytest.mark.parametrize('name', sorted(REPARAMETERIZED))
def test_sampling_is_reparameterized(name):
    _, cls, params, _, _, _ = CASES[name]
    for key in REPARAMETERIZED[name]:
        args = dict(params)
        args[key] = chainlite.Variable(params[key])
        np.random.seed(0)
        s = cls(**args).sample(5)
        assert s.shape == (5,) + SHAPE
        F.sum(s).backward()
        assert args[key].grad is not None and np.all(np.isfinite(args[key].grad)), key
        # The same noise with the parameter nudged: the sample moves as the gradient says.
        h = 1e-6
        bumped = dict(params)
        bumped[key] = params[key] + h
        np.random.seed(0)
        s2 = cls(**bumped).sample(5)
        np.testing.assert_allclose((s2.array - s.array).sum(axis=0) / h, args[key].grad,
                                   rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize('name', sorted(CASES))
def test_sample_moments_match_scipy(name):
    _, cls, params, ref, _, _ = CASES[name]
    np.random.seed(1)
    s = cls(**params).sample((20000,)).array
    assert s.shape == (20000,) + SHAPE
    if name == 'Cauchy':
        np.testing.assert_allclose(np.median(s, axis=0), ref.median(), atol=0.06)
        return
    if name == 'LogNormal':
        # Heavy right tail: compare the moments of log x, N(mu, sigma^2).
        s = np.log(s)
        ref = stats.norm(params['mu'], params['sigma'])
    np.testing.assert_allclose(s.mean(axis=0), ref.mean(), rtol=0.05, atol=0.05)
    np.testing.assert_allclose(s.std(axis=0), ref.std(), rtol=0.08, atol=0.05)


def test_sample_shapes():
    d = D.Normal(np.zeros((4, 3)), np.ones((4, 3)))
    assert d.sample().shape == (4, 3)
    assert d.sample(7).shape == (7, 4, 3)
    assert d.sample((6, 5)).shape == (6, 5, 4, 3)
    assert d.sample_n(2).shape == (2, 4, 3)


def test_normal_log_scale_and_errors():
    loc, log_scale = _u(-1, 1), _u(-1, 1, seed=2)
    d = D.Normal(loc, log_scale=log_scale)
    np.testing.assert_allclose(d.scale.array, np.exp(log_scale))
    np.testing.assert_allclose(d.log_prob(loc).array,
                               stats.norm(loc, np.exp(log_scale)).logpdf(loc))
    testing.check_grads(lambda m, s: D.Normal(m, log_scale=s).log_prob(loc + 0.3),
                        (loc, log_scale))
    with pytest.raises(ValueError, match='Normal: either `scale` or `log_scale`'):
        D.Normal(loc)
    with pytest.raises(ValueError, match='not both'):
        D.Normal(loc, np.ones(SHAPE), log_scale=log_scale)
    with pytest.raises(TypeError, match='Normal: unexpected keyword'):
        D.Normal(loc, np.ones(SHAPE), scal=1)


def test_cauchy_moments_warn():
    d = D.Cauchy(np.zeros(2), np.ones(2))
    with pytest.warns(RuntimeWarning, match='undefined'):
        assert np.isnan(d.mean.array).all()
    with pytest.warns(RuntimeWarning, match='undefined'):
        assert np.isnan(d.variance.array).all()


def test_support_strings_and_params():
    assert D.Normal(np.zeros(1), np.ones(1)).support == 'real'
    assert D.Bernoulli(np.full(1, 0.5)).support == '{0, 1}'
    assert D.Beta(np.ones(1), np.ones(1)).support == '[0, 1]'
    assert D.Poisson(np.ones(1)).support == 'non negative integer'
    assert D.Geometric(np.full(1, 0.5)).support == 'positive integer'
    assert D.Pareto(np.ones(1), np.ones(1)).support == '[scale, inf]'
    assert D.Uniform(low=np.zeros(1), high=np.ones(1)).support == '[low, high]'
    assert sorted(D.Uniform(loc=np.zeros(1), scale=np.ones(1)).params) == ['loc', 'scale']
    assert sorted(D.Gamma(np.ones(1), np.ones(1)).params) == ['k', 'theta']
    assert D.Normal(np.zeros(1), np.ones(1)).xp is np


def test_out_of_support_log_prob_is_minus_inf():
    with np.errstate(all='ignore'):
        assert D.Exponential(np.ones(2)).log_prob(np.array([-1.0, 1.0])).array[0] == -np.inf
        assert D.Gamma(np.ones(2), np.ones(2)).log_prob(np.array([-1.0, 1.0])).array[0] \
            == -np.inf
        assert D.Beta(np.ones(2), np.ones(2)).log_prob(np.array([1.5, 0.5])).array[0] \
            == -np.inf
        assert D.Pareto(np.ones(2), np.ones(2)).log_prob(np.array([0.5, 2.0])).array[0] \
            == -np.inf
        u = D.Uniform(low=np.zeros(2), high=np.ones(2))
        np.testing.assert_array_equal(u.log_prob(np.array([2.0, 0.5])).array, [-np.inf, 0])
    assert np.isinf(D.Pareto(np.ones(1), np.ones(1)).mean.array).all()
    assert np.isinf(D.Pareto(np.ones(1), np.full(1, 1.5)).variance.array).all()


def test_bernoulli_logit_and_binary_check():
    logit = _u(-3, 3)
    d = D.Bernoulli(logit=logit)
    np.testing.assert_allclose(d.p.array, special.expit(logit))
    x = np.full(SHAPE, 0.5)
    assert np.isfinite(d.log_prob(x).array).all()
    strict = D.Bernoulli(logit=logit, binary_check=True)
    assert (strict.log_prob(x).array == -np.inf).all()
    assert (strict.prob(x).array == 0).all()
    # Extreme logits: certain outcomes.
    with np.errstate(all='ignore'):
        sure = D.Bernoulli(logit=np.array([np.inf, -np.inf]))
        np.testing.assert_array_equal(sure.log_prob(np.array([1.0, 0.0])).array, [0, 0])
        np.testing.assert_array_equal(sure.log_prob(np.array([0.0, 1.0])).array,
                                      [-np.inf, -np.inf])
    with pytest.raises(ValueError, match='Bernoulli: either `p` or `logit`'):
        D.Bernoulli()
    testing.check_grads(lambda lg: D.Bernoulli(logit=lg).entropy, (logit,))


def test_categorical():
    p = _simplex(SHAPE + (4,))
    d = D.Categorical(p)
    assert d.batch_shape == SHAPE and d.event_shape == ()
    x = _rng(2).integers(0, 4, (5,) + SHAPE)
    expected = np.log(np.take_along_axis(np.broadcast_to(p, (5,) + p.shape),
                                         x[..., None], axis=-1))[..., 0]
    np.testing.assert_allclose(d.log_prob(x).array, expected)
    np.testing.assert_allclose(d.entropy.array, -(p * np.log(p)).sum(-1))
    logit = np.log(p) + 1.7
    np.testing.assert_allclose(D.Categorical(logit=logit).log_prob(x).array, expected)
    testing.check_grads(lambda lg: D.Categorical(logit=lg).log_prob(x), (logit,))
    testing.check_grads(lambda q: D.Categorical(q).entropy, (p,))
    np.random.seed(0)
    s = d.sample(20000).array
    assert s.shape == (20000,) + SHAPE
    freq = (s[..., None] == np.arange(4)).mean(axis=0)
    np.testing.assert_allclose(freq, p, atol=0.02)
    with pytest.raises(ValueError, match='Categorical: either'):
        D.Categorical()
    with pytest.raises(ValueError, match='does not end with the batch shape'):
        d.log_prob(np.zeros((5, 3), np.int64))


def test_one_hot_categorical():
    p = _simplex(SHAPE + (4,))
    d = D.OneHotCategorical(p)
    assert d.batch_shape == SHAPE and d.event_shape == (4,)
    np.random.seed(0)
    s = d.sample(20000).array
    assert s.shape == (20000,) + SHAPE + (4,) and set(np.unique(s)) == {0.0, 1.0}
    np.testing.assert_allclose(s.mean(axis=0), p, atol=0.02)
    x = s[:3]
    np.testing.assert_allclose(d.log_prob(x).array, (np.log(p) * x).sum(-1))
    np.testing.assert_allclose(d.mean.array, p)
    np.testing.assert_allclose(d.variance.array, p * (1 - p))
    testing.check_grads(lambda q: D.OneHotCategorical(q).log_prob(x), (p,))


def test_dirichlet():
    alpha = _u(0.8, 3, SHAPE + (3,))
    d = D.Dirichlet(alpha)
    x = _simplex(SHAPE + (3,), seed=4)
    for i in np.ndindex(*SHAPE):
        ref = stats.dirichlet(alpha[i])
        np.testing.assert_allclose(d.log_prob(x).array[i], ref.logpdf(x[i]))
        np.testing.assert_allclose(d.entropy.array[i], ref.entropy())
        np.testing.assert_allclose(d.mean.array[i], ref.mean())
        np.testing.assert_allclose(d.variance.array[i], ref.var())
    testing.check_grads(lambda a: D.Dirichlet(a).log_prob(x), (alpha,))
    testing.check_grads(lambda a: D.Dirichlet(a).entropy, (alpha,))
    np.random.seed(0)
    s = d.sample(20000).array
    assert s.shape == (20000,) + SHAPE + (3,)
    np.testing.assert_allclose(s.mean(axis=0), d.mean.array, atol=0.02)


def _mvn_params(shape=SHAPE, d=3, seed=0):
    rng = _rng(seed)
    loc = rng.uniform(-1, 1, shape + (d,))
    m = rng.normal(size=shape + (d, d))
    cov = m @ np.swapaxes(m, -1, -2) + 0.5 * np.eye(d)
    return loc, np.linalg.cholesky(cov), cov


def test_multivariate_normal():
    loc, tril, cov = _mvn_params()
    d = D.MultivariateNormal(loc, scale_tril=tril)
    assert d.batch_shape == SHAPE and d.event_shape == (3,)
    x = _rng(3).normal(size=(4,) + SHAPE + (3,))
    lp = d.log_prob(x).array
    assert lp.shape == (4,) + SHAPE
    for i in np.ndindex(*SHAPE):
        ref = stats.multivariate_normal(loc[i], cov[i])
        np.testing.assert_allclose(lp[(slice(None),) + i], ref.logpdf(x[(slice(None),) + i]))
        np.testing.assert_allclose(d.entropy.array[i], ref.entropy())
    np.testing.assert_allclose(d.covariance.array, cov)
    testing.check_grads(lambda m, t: D.MultivariateNormal(m, scale_tril=t).log_prob(x),
                        (loc, tril))
    testing.check_grads(lambda t: D.MultivariateNormal(loc, scale_tril=t).entropy, (tril,))
    np.random.seed(0)
    s = d.sample(40000).array
    assert s.shape == (40000,) + SHAPE + (3,)
    np.testing.assert_allclose(s.mean(axis=0), loc, atol=0.05)
    c = np.einsum('n...i,n...j->...ij', s - loc, s - loc) / len(s)
    np.testing.assert_allclose(c, cov, atol=0.1, rtol=0.05)
    # Reparameterized: gradients reach loc and scale_tril.
    lv, tv = chainlite.Variable(loc), chainlite.Variable(tril)
    F.sum(D.MultivariateNormal(lv, scale_tril=tv).sample(3)).backward()
    np.testing.assert_allclose(lv.grad, np.full(loc.shape, 3.0))
    assert tv.grad is not None
    with pytest.raises(ValueError, match='scale_tril'):
        D.MultivariateNormal(loc)


def test_independent():
    loc, scale = _u(-1, 1, (2, 3, 4)), _u(0.5, 2, (2, 3, 4), seed=1)
    base = D.Normal(loc, scale)
    d = D.Independent(base)
    assert d.batch_shape == (2,) and d.event_shape == (3, 4)
    assert D.Independent(base, 1).batch_shape == (2, 3)
    x = _u(-2, 2, (5, 2, 3, 4), seed=3)
    np.testing.assert_allclose(d.log_prob(x).array,
                               stats.norm(loc, scale).logpdf(x).sum(axis=(-1, -2)))
    np.testing.assert_allclose(d.prob(x).array,
                               stats.norm(loc, scale).pdf(x).prod(axis=(-1, -2)))
    np.testing.assert_allclose(d.cdf(x).array,
                               stats.norm(loc, scale).cdf(x).prod(axis=(-1, -2)))
    np.testing.assert_allclose(d.entropy.array,
                               stats.norm(loc, scale).entropy().sum(axis=(-1, -2)))
    assert d.sample(3).shape == (3, 2, 3, 4)
    cov = D.Independent(D.Normal(loc, scale), 2).covariance.array
    np.testing.assert_allclose(cov, np.stack([np.diag(v.ravel() ** 2) for v in scale]))
    mloc, tril, mcov = _mvn_params((2, 2), 3)
    mcov_block = D.Independent(D.MultivariateNormal(mloc, scale_tril=tril)).covariance.array
    assert mcov_block.shape == (2, 6, 6)
    np.testing.assert_allclose(mcov_block[1, 3:, 3:], mcov[1, 1])
    np.testing.assert_allclose(mcov_block[1, :3, 3:], 0)
    with pytest.raises(ValueError, match='reinterpreted_batch_ndims'):
        D.Independent(base, 4)
    with pytest.raises(RuntimeError, match='not invertible'):
        d.icdf(x)
    testing.check_grads(lambda m: D.Independent(D.Normal(m, scale)).log_prob(x), (loc,))


def test_unsupported_members_name_the_distribution():
    d = D.Beta(np.ones(2), np.ones(2))
    with pytest.raises(NotImplementedError, match='Beta does not define cdf'):
        d.cdf(np.full(2, 0.5))
    with pytest.raises(NotImplementedError, match='Beta does not define mode'):
        d.mode


def test_top_level_names():
    assert chainlite.Distribution is D.Distribution
    assert chainlite.kl_divergence is D.kl_divergence
    assert chainlite.register_kl is D.register_kl
    assert chainlite.cross_entropy is D.cross_entropy


@pytest.mark.parametrize('name', sorted(CASES))
def test_array_inputs_take_the_parameters_dtype(name):
    # A float32 realization with float64 parameters: computed in float64, not rejected.
    _, cls, params, _, x, methods = CASES[name]
    dist = cls(**params)
    for method in methods:
        member = getattr(dist, method)
        if callable(member):
            arg = _u(0.05, 0.95, seed=5) if method == 'icdf' else x
            assert member(arg.astype(np.float32)).dtype == np.float64, method
