"""Every distribution of ``chainlite.distributions``, and the array helpers of
``chainlite.utils``, on a GPU array module against the CPU.

Each distribution of ``CASES`` (every public one is there or in ``SKIPPED``) is built from
the same parameters on the CPU and on the GPU (the strict CuPy stand-in, or real CuPy under
``CHAINLITE_TEST_GPU=1``), in float16, float32 and float64. For every member (densities,
distribution functions, moments, entropy, ...) the GPU gives a GPU array equal to the CPU's
result, or refuses where the CPU refuses (a member a distribution does not define);
gradients of ``log_prob`` with respect to the parameters match; samples are drawn on the GPU
(GPU arrays of the right shape and dtype whose empirical mean is near ``mean``; on the
stand-in, which draws NumPy's numbers, they equal the CPU's draws); and ``kl_divergence`` of
every registered pair matches, with its gradients.
"""
import io
import os
import unittest
import warnings

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import distribution
from chainlite import distributions as D
from chainlite import testing
from chainlite import utils
from chainlite.backends import cuda
from chainlite.utils import array as array_utils
from chainlite.utils import sparse
from chainlite.utils import type_check

REAL_GPU = os.environ.get('CHAINLITE_TEST_GPU') == '1'
DTYPES = [numpy.float64, numpy.float32, numpy.float16]
_TOL = {numpy.float64: (1e-7, 1e-9), numpy.float32: (1e-4, 1e-5), numpy.float16: (2e-2, 2e-3)}
SHAPE = (2, 3)


def _tol(dtype):
    rtol, atol = _TOL[dtype]
    if REAL_GPU:
        rtol, atol = max(rtol, 1e-5), max(atol, 1e-6)
    return rtol, atol


def _u(lo, hi, seed, shape=SHAPE):
    return numpy.random.default_rng(seed).uniform(lo, hi, shape)


def _simplex(seed, k=4):
    p = numpy.exp(numpy.random.default_rng(seed).normal(size=SHAPE + (k,)))
    return p / p.sum(axis=-1, keepdims=True)


def _tril(seed, d=3):
    m = numpy.random.default_rng(seed).normal(size=SHAPE[:1] + (d, d))
    return numpy.linalg.cholesky(m @ numpy.swapaxes(m, -1, -2) + 0.5 * numpy.eye(d))


def _one_hot(seed, k=4):
    index = numpy.random.default_rng(seed).integers(0, k, SHAPE)
    return numpy.eye(k)[index]


class Case:
    """A distribution's constructor, the parameters of ``p`` and ``q`` (for the KL
    divergence) and a realization ``x`` inside the support."""

    def __init__(self, build, p, q, x):
        self.build, self.p, self.q, self.x = build, p, q, x


CASES = {
    'Bernoulli': Case(lambda a: D.Bernoulli(p=a['p']), {'p': _u(0.1, 0.9, 0)},
                      {'p': _u(0.1, 0.9, 1)}, (_u(0, 1, 3) > 0.5).astype(numpy.float64)),
    'Beta': Case(lambda a: D.Beta(a['a'], a['b']), {'a': _u(0.8, 3, 0), 'b': _u(0.8, 3, 10)},
                 {'a': _u(0.8, 3, 1), 'b': _u(0.8, 3, 11)}, _u(0.1, 0.9, 3)),
    'Categorical': Case(lambda a: D.Categorical(a['p']), {'p': _simplex(0)},
                        {'p': _simplex(1)},
                        numpy.random.default_rng(3).integers(0, 4, SHAPE)),
    'Cauchy': Case(lambda a: D.Cauchy(a['loc'], a['scale']),
                   {'loc': _u(-1, 1, 0), 'scale': _u(0.5, 2, 10)},
                   {'loc': _u(-1, 1, 1), 'scale': _u(0.5, 2, 11)}, _u(-3, 3, 3)),
    'Chisquare': Case(lambda a: D.Chisquare(a['k']), {'k': _u(1.5, 4, 0)},
                      {'k': _u(1.5, 4, 1)}, _u(0.5, 4, 3)),
    'Dirichlet': Case(lambda a: D.Dirichlet(a['alpha']), {'alpha': _u(2.5, 4, 0, SHAPE + (4,))},
                      {'alpha': _u(2.5, 4, 1, SHAPE + (4,))}, _simplex(3)),
    'Exponential': Case(lambda a: D.Exponential(a['lam']), {'lam': _u(0.5, 3, 0)},
                        {'lam': _u(0.5, 3, 1)}, _u(0.1, 3, 3)),
    'Gamma': Case(lambda a: D.Gamma(a['k'], a['theta']),
                  {'k': _u(1.5, 4, 0), 'theta': _u(0.5, 2, 10)},
                  {'k': _u(1.5, 4, 1), 'theta': _u(0.5, 2, 11)}, _u(0.2, 4, 3)),
    'Geometric': Case(lambda a: D.Geometric(a['p']), {'p': _u(0.2, 0.8, 0)},
                      {'p': _u(0.2, 0.8, 1)}, numpy.floor(_u(1, 6, 3))),
    'Gumbel': Case(lambda a: D.Gumbel(a['loc'], a['scale']),
                   {'loc': _u(-1, 1, 0), 'scale': _u(0.7, 1.5, 10)},
                   {'loc': _u(-1, 1, 1), 'scale': _u(0.7, 1.5, 11)}, _u(-2, 3, 3)),
    # A batch of 2 three-dimensional events built from a (2, 3) batch of normals.
    'Independent': Case(lambda a: D.Independent(D.Normal(a['loc'], a['scale'])),
                        {'loc': _u(-1, 1, 0), 'scale': _u(0.5, 2, 10)},
                        {'loc': _u(-1, 1, 1), 'scale': _u(0.5, 2, 11)}, _u(-2, 2, 3)),
    'Laplace': Case(lambda a: D.Laplace(a['loc'], a['scale']),
                    {'loc': _u(-1, 1, 0), 'scale': _u(0.5, 2, 10)},
                    {'loc': _u(-1, 1, 1), 'scale': _u(0.5, 2, 11)}, _u(-3, 3, 3)),
    'LogNormal': Case(lambda a: D.LogNormal(a['mu'], a['sigma']),
                      {'mu': _u(-1, 1, 0), 'sigma': _u(0.3, 0.8, 10)},
                      {'mu': _u(-1, 1, 1), 'sigma': _u(0.3, 0.8, 11)}, _u(0.2, 3, 3)),
    'MultivariateNormal': Case(
        lambda a: D.MultivariateNormal(a['loc'], scale_tril=a['scale_tril']),
        {'loc': _u(-1, 1, 0), 'scale_tril': _tril(10)},
        {'loc': _u(-1, 1, 1), 'scale_tril': _tril(11)}, _u(-2, 2, 3)),
    'Normal': Case(lambda a: D.Normal(a['loc'], a['scale']),
                   {'loc': _u(-1, 1, 0), 'scale': _u(0.5, 2, 10)},
                   {'loc': _u(-1, 1, 1), 'scale': _u(0.5, 2, 11)}, _u(-2, 2, 3)),
    'OneHotCategorical': Case(lambda a: D.OneHotCategorical(a['p']), {'p': _simplex(0)},
                              {'p': _simplex(1)}, _one_hot(3)),
    # q's scale below p's, so that the divergence is finite; alpha > 2: a finite variance.
    'Pareto': Case(lambda a: D.Pareto(a['scale'], a['alpha']),
                   {'scale': _u(1.0, 1.5, 0), 'alpha': _u(2.5, 4, 10)},
                   {'scale': _u(0.5, 0.9, 1), 'alpha': _u(2.5, 4, 11)},
                   _u(1.6, 3, 3)),
    'Poisson': Case(lambda a: D.Poisson(a['lam']), {'lam': _u(0.5, 3, 0)},
                    {'lam': _u(0.5, 3, 1)}, numpy.floor(_u(0, 6, 3))),
    # q's interval contains p's.
    'Uniform': Case(lambda a: D.Uniform(low=a['low'], high=a['high']),
                    {'low': _u(-1, 0, 0), 'high': _u(1, 2, 10)},
                    {'low': _u(-3, -2, 1), 'high': _u(3, 4, 11)}, _u(0.05, 0.95, 3)),
}
# Public distribution classes not run here, with the reason.
SKIPPED = {
    'Distribution': 'the abstract base class (every member raises NotImplementedError)',
}
# Realizations given to the members that take one; icdf takes probabilities.
X_MEMBERS = ('log_prob', 'prob', 'cdf', 'log_cdf', 'icdf', 'survival_function',
             'log_survival_function', 'perplexity')
PROPERTIES = ('mean', 'variance', 'stddev', 'mode', 'entropy', 'covariance')
MEMBERS = X_MEMBERS + PROPERTIES
# Distributions whose samples are differentiable functions of some parameters.
REPARAMETERIZED = {
    'Cauchy': ('loc', 'scale'), 'Exponential': ('lam',), 'Gamma': ('theta',),
    'Gumbel': ('loc', 'scale'), 'Independent': ('loc', 'scale'), 'Laplace': ('loc', 'scale'),
    'LogNormal': ('mu', 'sigma'), 'MultivariateNormal': ('loc', 'scale_tril'),
    'Normal': ('loc', 'scale'), 'Pareto': ('scale',), 'Uniform': ('low', 'high'),
}


def _cast(x, dtype):
    return x.astype(dtype) if x.dtype.kind == 'f' else x


def _params(values, dtype, xp, variables=False):
    arrays = {k: xp.asarray(v.astype(dtype)) for k, v in values.items()}
    if variables:
        return {k: chainlite.Variable(v) for k, v in arrays.items()}
    return arrays


def _x_for(case, member, dtype, xp):
    if member == 'icdf':
        return xp.asarray(_u(0.05, 0.95, 5, case.build(case.p).batch_shape).astype(dtype))
    return xp.asarray(_cast(case.x, dtype))


def _member(case, member, dtype, xp):
    dist = case.build(_params(case.p, dtype, xp))
    with warnings.catch_warnings(), numpy.errstate(all='ignore'):
        warnings.simplefilter('ignore', RuntimeWarning)  # Cauchy's undefined moments
        if member in X_MEMBERS:
            return getattr(dist, member)(_x_for(case, member, dtype, xp))
        return getattr(dist, member)


def _attempt(f, *args):
    try:
        return f(*args), None
    except Exception as e:  # compared with the other device's outcome
        return None, e


def _assert_same(cpu, gpu, xp, dtype, what):
    assert isinstance(gpu, chainlite.Variable), what
    assert isinstance(gpu.array, xp.ndarray), '%s: %s' % (what, type(gpu.array))
    assert gpu.dtype == cpu.dtype and gpu.shape == cpu.shape, what
    rtol, atol = _tol(dtype)
    numpy.testing.assert_allclose(cuda.to_cpu(gpu.array), cpu.array, rtol=rtol, atol=atol,
                                  err_msg=what)


def test_every_distribution_is_listed():
    public = {name for name in dir(D) if isinstance(getattr(D, name), type)
              and issubclass(getattr(D, name), distribution.Distribution)}
    assert public == set(CASES) | set(SKIPPED)
    assert not set(CASES) & set(SKIPPED)


@pytest.mark.parametrize('dtype', DTYPES, ids=lambda d: numpy.dtype(d).name)
@pytest.mark.parametrize('member', MEMBERS)
@pytest.mark.parametrize('name', sorted(CASES))
def test_member_on_gpu_matches_cpu(name, member, dtype, gpu_xp):
    case = CASES[name]
    cpu, cpu_error = _attempt(_member, case, member, dtype, numpy)
    gpu, gpu_error = _attempt(_member, case, member, dtype, gpu_xp)
    if cpu_error is not None:
        assert gpu_error is not None, '%s.%s refuses %s on the CPU (%r) but not on the GPU' % (
            name, member, numpy.dtype(dtype).name, cpu_error)
        assert type(gpu_error) is type(cpu_error), (cpu_error, gpu_error)
        assert str(gpu_error) == str(cpu_error)
        return
    if gpu_error is not None:
        raise gpu_error
    _assert_same(cpu, gpu, gpu_xp, dtype, '%s.%s' % (name, member))


def _log_prob_grads(case, dtype, xp):
    params = _params(case.p, dtype, xp, variables=True)
    dist = case.build(params)
    y = dist.log_prob(xp.asarray(_cast(case.x, dtype)))
    seed = numpy.random.RandomState(7).uniform(-1, 1, y.shape).astype(y.dtype)
    names = sorted(params)
    grads = chainlite.grad([y], [params[k] for k in names], [chainlite.Variable(xp.asarray(seed))])
    return [y] + list(grads)


@pytest.mark.parametrize('dtype', DTYPES, ids=lambda d: numpy.dtype(d).name)
@pytest.mark.parametrize('name', sorted(CASES))
def test_log_prob_gradients_on_gpu_match_cpu(name, dtype, gpu_xp):
    case = CASES[name]
    with numpy.errstate(all='ignore'):
        cpu = _log_prob_grads(case, dtype, numpy)
        gpu = _log_prob_grads(case, dtype, gpu_xp)
    assert len(cpu) == len(gpu) == len(case.p) + 1
    for i, (c, g) in enumerate(zip(cpu, gpu)):
        assert c is not None and g is not None, (name, i)
        _assert_same(c, g, gpu_xp, dtype, '%s: log_prob and its gradients, %d' % (name, i))


N_SAMPLES = 20000


def _sample(case, dtype, xp, n, variables=False):
    params = _params(case.p, dtype, xp, variables=variables)
    numpy.random.seed(3)
    if xp is not numpy:
        xp.random.seed(3)
    with numpy.errstate(over='ignore'):  # Cauchy's float16 draws overflow to inf
        return params, case.build(params).sample(n)


@pytest.mark.parametrize('dtype', DTYPES, ids=lambda d: numpy.dtype(d).name)
@pytest.mark.parametrize('name', sorted(CASES))
def test_sample_on_gpu(name, dtype, gpu_xp):
    case = CASES[name]
    _, cpu = _sample(case, dtype, numpy, N_SAMPLES)
    _, gpu = _sample(case, dtype, gpu_xp, N_SAMPLES)
    dist = case.build(_params(case.p, dtype, gpu_xp))
    assert isinstance(gpu, chainlite.Variable)
    assert isinstance(gpu.array, gpu_xp.ndarray), type(gpu.array)
    assert gpu.shape == (N_SAMPLES,) + dist.batch_shape + dist.event_shape == cpu.shape
    assert gpu.dtype == cpu.dtype
    n = dist.sample_n(3)
    assert isinstance(n.array, gpu_xp.ndarray) and n.shape == (3,) + gpu.shape[1:]
    assert dist.sample((2, 5)).shape == (2, 5) + gpu.shape[1:]
    if not REAL_GPU:
        # The stand-in draws NumPy's numbers: the same seed gives the CPU's sample.
        numpy.testing.assert_array_equal(cuda.to_cpu(gpu.array), cpu.array)
    drawn = cuda.to_cpu(gpu.array).astype(numpy.float64)
    if name == 'Categorical':
        # Each class is drawn about as often as its probability says.
        freq = (drawn[..., None] == numpy.arange(4)).mean(axis=0)
        numpy.testing.assert_allclose(freq, case.p['p'], atol=0.02)
        return
    if name == 'Cauchy':
        numpy.testing.assert_allclose(numpy.median(drawn, axis=0), case.p['loc'], atol=0.1)
        return
    mean = cuda.to_cpu(dist.mean.array).astype(numpy.float64)
    std = numpy.sqrt(cuda.to_cpu(dist.variance.array).astype(numpy.float64))
    if mean.shape != drawn.shape[1:]:
        mean, std = (numpy.broadcast_to(v, drawn.shape[1:]) for v in (mean, std))
    # Five standard errors of the mean, and float16's rounding of the draws.
    bound = 5 * std / numpy.sqrt(N_SAMPLES) + (2e-3 * (1 + abs(mean))
                                               if dtype == numpy.float16 else 0)
    assert numpy.all(abs(drawn.mean(axis=0) - mean) <= bound), (drawn.mean(axis=0), mean)


@pytest.mark.parametrize('dtype', [numpy.float64, numpy.float32],
                         ids=lambda d: numpy.dtype(d).name)
@pytest.mark.parametrize('name', sorted(REPARAMETERIZED))
def test_reparameterized_sample_gradients_on_gpu(name, dtype, gpu_xp):
    case = CASES[name]
    results = []
    for xp in (numpy, gpu_xp):
        params, s = _sample(case, dtype, xp, 5, variables=True)
        keys = REPARAMETERIZED[name]
        grads = chainlite.grad([F.sum(s * s)], [params[k] for k in keys])
        results.append(grads)
        for k, g in zip(keys, grads):
            assert g is not None and isinstance(g.array, xp.ndarray), (name, k)
            assert g.dtype == dtype and g.shape == params[k].shape
    if not REAL_GPU:
        # Same noise on both devices (the stand-in's generator is NumPy's).
        for c, g in zip(*results):
            _assert_same(c, g, gpu_xp, dtype, name)


def _kl_pairs():
    return sorted(distribution._KLDIVERGENCE, key=lambda pair: (pair[0].__name__,
                                                                  pair[1].__name__))


def _case_of(cls):
    return CASES.get(cls.__name__)


def test_every_kl_pair_has_a_case():
    for cls1, cls2 in _kl_pairs():
        assert _case_of(cls1) is not None and _case_of(cls2) is not None, (cls1, cls2)


def _kl(pair, dtype, xp):
    cls1, cls2 = pair
    p = _params(_case_of(cls1).p, dtype, xp, variables=True)
    q = _params(_case_of(cls2).q, dtype, xp, variables=True)
    kl = distribution.kl_divergence(_case_of(cls1).build(p), _case_of(cls2).build(q))
    names = [('p', k) for k in sorted(p)] + [('q', k) for k in sorted(q)]
    inputs = [p[k] if side == 'p' else q[k] for side, k in names]
    seed = numpy.random.RandomState(5).uniform(-1, 1, kl.shape).astype(kl.dtype)
    grads = chainlite.grad([kl], inputs, [chainlite.Variable(xp.asarray(seed))])
    return [kl] + list(grads)


@pytest.mark.parametrize('dtype', DTYPES, ids=lambda d: numpy.dtype(d).name)
@pytest.mark.parametrize('pair', _kl_pairs(),
                         ids=lambda pair: '%s-%s' % (pair[0].__name__, pair[1].__name__))
def test_kl_divergence_on_gpu_matches_cpu(pair, dtype, gpu_xp):
    with numpy.errstate(all='ignore'):
        cpu, cpu_error = _attempt(_kl, pair, dtype, numpy)
        gpu, gpu_error = _attempt(_kl, pair, dtype, gpu_xp)
    if cpu_error is not None:
        assert gpu_error is not None and type(gpu_error) is type(cpu_error), (cpu_error,
                                                                               gpu_error)
        return
    if gpu_error is not None:
        raise gpu_error
    assert numpy.all(numpy.isfinite(cpu[0].array))
    for i, (c, g) in enumerate(zip(cpu, gpu)):
        assert c is not None and g is not None, i
        _assert_same(c, g, gpu_xp, dtype, '%s-%s, result %d' % (pair[0].__name__,
                                                               pair[1].__name__, i))


@pytest.mark.parametrize('lower', [True, False])
@pytest.mark.parametrize('shape', [(3, 3), (2, 4, 4), (2, 0, 0)])
@pytest.mark.parametrize('dtype', DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_triangular_inv_on_gpu_matches_cpu(lower, shape, dtype, gpu_xp):
    from chainlite.distributions import multivariate_normal
    m = numpy.random.default_rng(0).uniform(-1, 1, shape) + 3 * numpy.eye(shape[-1])
    m = (numpy.tril(m) if lower else numpy.triu(m)).astype(dtype)
    results = []
    for xp in (numpy, gpu_xp):
        x = chainlite.Variable(xp.asarray(m))
        y = multivariate_normal._triangular_inv(x, lower=lower)
        gy = numpy.random.default_rng(1).uniform(-1, 1, shape).astype(dtype)
        gx, = chainlite.grad([y], [x], [chainlite.Variable(xp.asarray(gy))])
        results.append((y, gx))
    for c, g in zip(*results):
        _assert_same(c, g, gpu_xp, dtype, 'triangular_inv')
    y = cuda.to_cpu(results[1][0].array)
    assert numpy.all((numpy.triu(y, 1) if lower else numpy.tril(y, -1)) == 0)


def test_cross_entropy_on_gpu(gpu_xp):
    case = CASES['Categorical']
    results = []
    for xp in (numpy, gpu_xp):
        p, q = case.build(_params(case.p, numpy.float32, xp)), case.build(
            _params(case.q, numpy.float32, xp))
        results.append(distribution.cross_entropy(p, q))
    _assert_same(results[0], results[1], gpu_xp, numpy.float32, 'cross_entropy')


def test_log_prob_takes_python_scalars_on_the_parameters_device(gpu_xp):
    d = D.Exponential(gpu_xp.asarray(numpy.array([0.5, 2.0], numpy.float32)))
    y = d.log_prob(1.5)
    assert isinstance(y.array, gpu_xp.ndarray) and y.dtype == numpy.float32
    numpy.testing.assert_allclose(
        cuda.to_cpu(y.array),
        D.Exponential(numpy.array([0.5, 2.0], numpy.float32)).log_prob(1.5).array)
    q = d.icdf(0.25)
    assert isinstance(q.array, gpu_xp.ndarray) and q.dtype == numpy.float32


def test_distribution_xp_is_the_parameters_module(gpu_xp):
    case = CASES['Normal']
    assert case.build(_params(case.p, numpy.float32, gpu_xp)).xp is gpu_xp
    assert case.build(_params(case.p, numpy.float32, numpy)).xp is numpy


# distribution_unittest's GPU tests on chainlite's own distributions -----------------------------

class _ExponentialCase(testing.distribution_unittest):
    __test__ = False  # run by the test below, on the GPU module
    shape, sample_shape, is_variable = (2,), (3,), True

    def setUp_configure(self):
        from scipy import stats
        lam = numpy.array([0.5, 2.0], numpy.float32)
        self.dist, self.params = D.Exponential, {'lam': lam}
        self.scipy_dist, self.scipy_params = stats.expon, {'scale': 1 / lam}
        self.support = 'positive'
        self.test_targets = {'batch_shape', 'event_shape', 'support', 'cdf', 'entropy',
                             'icdf', 'log_prob', 'mean', 'prob', 'sample', 'stddev',
                             'survival', 'log_survival', 'variance'}

    def sample_for_test(self):
        return numpy.random.uniform(0.1, 3, (3, 2)).astype(numpy.float32)


class _NormalCase(testing.distribution_unittest):
    __test__ = False
    shape, sample_shape, is_variable = (3,), (2,), False

    def setUp_configure(self):
        from scipy import stats
        loc = numpy.array([-1.0, 0.0, 0.5], numpy.float32)
        scale = numpy.array([0.5, 1.0, 2.0], numpy.float32)
        self.dist, self.params = D.Normal, {'loc': loc, 'scale': scale}
        self.scipy_dist, self.scipy_params = stats.norm, {'loc': loc, 'scale': scale}
        self.test_targets = {'batch_shape', 'event_shape', 'support', 'cdf', 'log_cdf',
                             'entropy', 'icdf', 'log_prob', 'mean', 'prob', 'sample',
                             'stddev', 'survival', 'log_survival', 'variance'}

    def sample_for_test(self):
        return numpy.random.uniform(-2, 2, (2, 3)).astype(numpy.float32)


@pytest.mark.parametrize('case', [_ExponentialCase, _NormalCase], ids=lambda c: c.__name__)
def test_distribution_unittest_gpu_tests_pass(case, gpu_xp):
    names = [n for n in unittest.defaultTestLoader.getTestCaseNames(case)
             if n.endswith('_gpu')]
    numpy.random.seed(0)
    gpu_xp.random.seed(0)
    result = unittest.TextTestRunner(stream=io.StringIO()).run(
        unittest.TestSuite(case(n) for n in names))
    assert result.wasSuccessful(), result.failures + result.errors
    probe = case('test_mean_gpu')
    probe.setUp()
    # Every target ran on the GPU (the others are skipped, saying they are not targets).
    assert result.testsRun - len(result.skipped) == len(probe.test_targets), result.skipped


# chainlite.utils on GPU arrays -------------------------------------------------------------------

def _dense(seed=0, shape=(3, 4)):
    x = numpy.random.default_rng(seed).uniform(-1, 1, shape).astype(numpy.float32)
    x[numpy.abs(x) < 0.5] = 0
    return x


@pytest.mark.parametrize('shape', [(3, 4), (2, 3, 4)])
@pytest.mark.parametrize('ldnz', [None, 12])
def test_to_coo_of_a_gpu_array(shape, ldnz, gpu_xp):
    x = _dense(shape=shape)
    cpu = sparse.to_coo(x, ldnz=ldnz)
    gpu = sparse.to_coo(gpu_xp.asarray(x), ldnz=ldnz)
    assert isinstance(gpu, sparse.CooMatrix)
    for name in ('row', 'col'):
        g = getattr(gpu, name)
        assert isinstance(g, gpu_xp.ndarray) and g.dtype == numpy.int32, name
        numpy.testing.assert_array_equal(cuda.to_cpu(g), getattr(cpu, name))
    assert isinstance(gpu.data.array, gpu_xp.ndarray)
    numpy.testing.assert_array_equal(cuda.to_cpu(gpu.data.array), cpu.data.array)
    assert gpu.shape == cpu.shape and gpu.order == cpu.order == 'C'
    dense = gpu.to_dense()
    assert isinstance(dense, gpu_xp.ndarray)
    numpy.testing.assert_array_equal(cuda.to_cpu(dense), x)


def test_to_coo_of_a_gpu_zero_matrix(gpu_xp):
    gpu = sparse.to_coo(gpu_xp.zeros((2, 3), numpy.float32), ldnz=2)
    assert gpu.data.shape == (2,) and isinstance(gpu.row, gpu_xp.ndarray)
    numpy.testing.assert_array_equal(cuda.to_cpu(gpu.row), [-1, -1])
    numpy.testing.assert_array_equal(cuda.to_cpu(gpu.to_dense()), numpy.zeros((2, 3)))


def test_get_order_of_gpu_indices(gpu_xp):
    for row, col, order in [([0, 0, 1, -1], [0, 2, 1, -1], 'C'),
                            ([1, 0, 1], [0, 1, 1], 'F'),
                            ([1, 0, 0], [1, 1, 0], 'other')]:
        r, c = numpy.array(row, numpy.int32), numpy.array(col, numpy.int32)
        assert sparse.get_order(gpu_xp.asarray(r), gpu_xp.asarray(c)) == order
        assert sparse.get_order(r, c) == order
    batch = gpu_xp.asarray(numpy.array([[0, 1], [1, 0]], numpy.int32))
    assert sparse.get_order(batch, batch) == sparse.get_order(cuda.to_cpu(batch),
                                                             cuda.to_cpu(batch)) == 'other'
    with pytest.raises(ValueError, match='one negative index'):
        sparse.get_order(gpu_xp.asarray(numpy.array([0, -1])),
                         gpu_xp.asarray(numpy.array([0, 1])))


@pytest.mark.parametrize('transa', [False, True])
def test_sparse_matmul_with_a_gpu_coo_matrix(transa, gpu_xp):
    a = _dense(1)
    b = numpy.random.default_rng(2).uniform(-1, 1, (3 if transa else 4, 2)).astype(
        numpy.float32)
    results = []
    for xp in (numpy, gpu_xp):
        coo = sparse.to_coo(xp.asarray(a), requires_grad=True)
        vb = chainlite.Variable(xp.asarray(b))
        y = F.sparse_matmul(coo, vb, transa=transa)
        gy = xp.asarray(numpy.ones(y.shape, numpy.float32))
        ga, gb = chainlite.grad([y], [coo.data, vb], [chainlite.Variable(gy)])
        results.append((y, ga, gb))
    for c, g in zip(*results):
        _assert_same(c, g, gpu_xp, numpy.float32, 'sparse_matmul')


def test_coo_matrix_of_gpu_arrays(gpu_xp):
    data = gpu_xp.asarray(numpy.array([2.0, -1.0, 0.0], numpy.float32))
    row = gpu_xp.asarray(numpy.array([0, 1, -1], numpy.int32))
    col = gpu_xp.asarray(numpy.array([1, 0, -1], numpy.int32))
    m = utils.CooMatrix(data, row, col, (2, 3))
    assert m.order == 'C' and isinstance(m.data.array, gpu_xp.ndarray)
    dense = m.to_dense()
    assert isinstance(dense, gpu_xp.ndarray)
    numpy.testing.assert_array_equal(cuda.to_cpu(dense), [[0, 2, 0], [-1, 0, 0]])
    with pytest.raises(ValueError, match='integer arrays'):
        utils.CooMatrix(data, row.astype(numpy.float32), col, (2, 3))


def test_force_array_and_force_type_keep_gpu_arrays(gpu_xp):
    x = gpu_xp.asarray(numpy.arange(3, dtype=numpy.float32))
    assert utils.force_array(x) is x
    y = utils.force_array(x, numpy.float64)
    assert isinstance(y, gpu_xp.ndarray) and y.dtype == numpy.float64
    s = gpu_xp.sum(x)  # CuPy's reductions give 0-d arrays, not scalars
    assert isinstance(utils.force_array(s), gpu_xp.ndarray)
    assert utils.force_type(numpy.dtype(numpy.float32), x) is x
    z = utils.force_type(numpy.dtype(numpy.float16), x)
    assert isinstance(z, gpu_xp.ndarray) and z.dtype == numpy.float16
    numpy.testing.assert_array_equal(cuda.to_cpu(z), [0, 1, 2])


def test_size_of_shape_of_a_gpu_array(gpu_xp):
    x = gpu_xp.zeros((2, 3, 4))
    assert utils.size_of_shape(x.shape) == x.size == 24
    assert type(utils.size_of_shape(x.shape)) is int


def test_array_helpers_on_gpu_arrays(gpu_xp):
    host = numpy.arange(24, dtype=numpy.float32).reshape(2, 3, 4)
    x = gpu_xp.asarray(host)
    for shape in [(1, 3, 1), (3, 4), (2, 1, 4), (2, 3, 4)]:
        y = array_utils.sum_to(x, shape)
        assert isinstance(y, gpu_xp.ndarray)
        numpy.testing.assert_array_equal(cuda.to_cpu(y), array_utils.sum_to(host, shape))
    with pytest.warns(DeprecationWarning):
        v = array_utils.as_vec(x)
    assert isinstance(v, gpu_xp.ndarray) and v.shape == (24,)
    with pytest.warns(DeprecationWarning):
        m = array_utils.as_mat(x)
    assert isinstance(m, gpu_xp.ndarray) and m.shape == (2, 12)
    with pytest.warns(DeprecationWarning):
        e = array_utils.empty_like(x)
    assert isinstance(e, gpu_xp.ndarray) and e.shape == x.shape and e.dtype == x.dtype


def test_type_check_same_types_tells_the_array_module(gpu_xp):
    g = gpu_xp.zeros(3)
    h = numpy.zeros(3)
    assert type_check.same_types(g, g)
    assert type_check.same_types(h, h)
    assert not type_check.same_types(g, h)
    assert not type_check.same_types(h, g, g)
    assert type_check.same_types(g, None)


def test_type_check_of_gpu_arrays(gpu_xp):
    x = gpu_xp.zeros((2, 3), numpy.float32)
    w = gpu_xp.zeros((4, 3), numpy.float32)
    types = type_check.get_types((x, w), 'in_types', False)
    x_type, w_type = types
    type_check.expect(x_type.dtype == numpy.float32, x_type.ndim == 2,
                      x_type.shape[1] == w_type.shape[1])
    with pytest.raises(type_check.InvalidType, match='in_types\\[0\\].shape\\[0\\] == '
                                                     'in_types\\[1\\].shape\\[0\\]'):
        type_check.expect(x_type.shape[0] == w_type.shape[0])
    with type_check.light_mode:
        light = type_check.get_light_types((x, w))
        type_check.expect(light[0].shape[1] == light[1].shape[1])
        assert type_check.eval(light[0]) is x
    v = type_check._make_variable_from_array(x, 'x')
    assert type_check.eval(v.shape) == (2, 3)


def test_checkpoint_takes_gpu_arrays(gpu_xp):
    from chainlite import links as L
    from chainlite.utils.checkpoint import checkpoint
    x = numpy.random.default_rng(0).uniform(-1, 1, (2, 4)).astype(numpy.float32)
    grads = []
    for xp in (numpy, gpu_xp):
        numpy.random.seed(0)
        block = chainlite.Sequential(L.Linear(4, 8), F.relu, L.Linear(8, 4))
        if xp is not numpy:
            block.to_device('@cupy:0')
        y = checkpoint(block, xp.asarray(x))
        assert isinstance(y.array, xp.ndarray)
        F.sum(y * y).backward()
        grads.append((y, block[0].W.grad_var, block[2].b.grad_var))
    for c, g in zip(*grads):
        _assert_same(c, g, gpu_xp, numpy.float32, 'checkpoint')


def test_summary_of_a_gpu_model_keeps_its_persistents(gpu_xp):
    from chainlite import links as L
    model = chainlite.Sequential(L.Linear(None, 3), L.BatchNormalization(3))
    model.to_device('@cupy:0')
    mean = model[1].avg_mean
    s = utils.summary(model, gpu_xp.zeros((4, 5), numpy.float32))
    assert [r.output_shape for r in s.rows] == [(4, 3), (4, 3), (4, 3)]
    assert s.total_params == 24 and model[0].W.array is None
    assert isinstance(model[1].avg_mean, gpu_xp.ndarray) and model[1].avg_mean is not mean
    numpy.testing.assert_array_equal(cuda.to_cpu(model[1].avg_mean), numpy.zeros(3))


def test_oversample_of_gpu_images(gpu_xp):
    from chainlite.utils import imgproc
    images = [numpy.arange(48, dtype=numpy.float32).reshape(3, 4, 4) + i for i in range(2)]
    got = imgproc.oversample([gpu_xp.asarray(im) for im in images], (2, 3))
    assert isinstance(got, gpu_xp.ndarray) and got.shape == (20, 3, 2, 3)
    numpy.testing.assert_array_equal(cuda.to_cpu(got), imgproc.oversample(images, (2, 3)))


def test_fp16_mixed_precision_helper_on_gpu_arrays(gpu_xp):
    from chainlite.utils.precision import _fp16_mixed_precision_helper

    class Twice:
        @_fp16_mixed_precision_helper
        def forward(self, inputs):
            assert inputs[0].dtype == numpy.float32
            return inputs[0] * 2,

    y, = Twice().forward((gpu_xp.ones(2, numpy.float16),))
    assert isinstance(y, gpu_xp.ndarray) and y.dtype == numpy.float16
    numpy.testing.assert_array_equal(cuda.to_cpu(y), [2, 2])
