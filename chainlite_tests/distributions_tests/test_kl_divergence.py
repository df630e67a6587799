"""kl_divergence for every registered pair: closed forms against Monte Carlo estimates
(or exact sums), gradients checked numerically; the registry and cross_entropy."""
import numpy as np
import pytest

import chainlite
from chainlite import distribution
from chainlite import distributions as D
from chainlite import testing

SHAPE = (2, 3)


def _u(lo, hi, seed, shape=SHAPE):
    return np.random.default_rng(seed).uniform(lo, hi, shape)


def _simplex(seed, k=3):
    p = np.exp(np.random.default_rng(seed).normal(size=SHAPE + (k,)))
    return p / p.sum(axis=-1, keepdims=True)


def _tril(seed, d=3):
    m = np.random.default_rng(seed).normal(size=SHAPE + (d, d))
    return np.linalg.cholesky(m @ np.swapaxes(m, -1, -2) + 0.5 * np.eye(d))


# name -> (class, params of p as a function of a seed); p and q use seeds 0 and 1.
PAIRS = {
    'Bernoulli': (D.Bernoulli, lambda s: {'p': _u(0.1, 0.9, s)}),
    'Beta': (D.Beta, lambda s: {'a': _u(0.8, 4, s), 'b': _u(0.8, 4, s + 10)}),
    'Categorical': (D.Categorical, lambda s: {'p': _simplex(s)}),
    'Dirichlet': (D.Dirichlet, lambda s: {'alpha': _u(0.8, 4, s, SHAPE + (3,))}),
    'Exponential': (D.Exponential, lambda s: {'lam': _u(0.5, 2, s)}),
    'Gamma': (D.Gamma, lambda s: {'k': _u(1, 4, s), 'theta': _u(0.5, 2, s + 10)}),
    'Geometric': (D.Geometric, lambda s: {'p': _u(0.2, 0.8, s)}),
    'Gumbel': (D.Gumbel, lambda s: {'loc': _u(-1, 1, s), 'scale': _u(0.7, 1.5, s + 10)}),
    'Laplace': (D.Laplace, lambda s: {'loc': _u(-1, 1, s), 'scale': _u(0.5, 2, s + 10)}),
    'LogNormal': (D.LogNormal, lambda s: {'mu': _u(-1, 1, s), 'sigma': _u(0.5, 1.5, s + 10)}),
    'MultivariateNormal': (D.MultivariateNormal,
                           lambda s: {'loc': _u(-1, 1, s, SHAPE + (3,)),
                                      'scale_tril': _tril(s + 10)}),
    'Normal': (D.Normal, lambda s: {'loc': _u(-1, 1, s), 'scale': _u(0.5, 2, s + 10)}),
    'OneHotCategorical': (D.OneHotCategorical, lambda s: {'p': _simplex(s)}),
    # q's scale below p's, so the divergence is finite.
    'Pareto': (D.Pareto, lambda s: {'scale': _u(1.0, 1.5, s) + (1 - s),
                                    'alpha': _u(1.5, 3, s + 10)}),
    'Poisson': (D.Poisson, lambda s: {'lam': _u(1, 5, s)}),
    # q contains p's support.
    'Uniform': (D.Uniform, lambda s: {'low': _u(-1, 0, s) - 2 * s,
                                      'high': _u(1, 2, s) + 2 * s}),
}


def _monte_carlo(p, q, n):
    np.random.seed(0)
    x = p.sample(n)
    return (p.log_prob(x).array - q.log_prob(x).array).mean(axis=0)


def test_every_chainer_pair_is_registered():
    chainer_pairs = set(PAIRS) | {'Independent'}
    registered = {a.__name__ for a, b in distribution._KLDIVERGENCE if a is b}
    assert chainer_pairs <= registered


@pytest.mark.parametrize('name', sorted(PAIRS))
def test_closed_form_matches_monte_carlo(name):
    cls, make = PAIRS[name]
    p, q = cls(**make(0)), cls(**make(1))
    kl = chainlite.kl_divergence(p, q)
    assert kl.shape == SHAPE and kl.dtype == np.float64
    with np.errstate(all='ignore'):
        mc = _monte_carlo(p, q, 100000)
    np.testing.assert_allclose(kl.array, mc, rtol=0.03, atol=0.01)
    # KL(p || p) == 0.
    np.testing.assert_allclose(chainlite.kl_divergence(p, cls(**make(0))).array, 0,
                               atol=1e-10)


@pytest.mark.parametrize('name', sorted(PAIRS))
def test_gradients(name):
    cls, make = PAIRS[name]
    pp, qp = make(0), make(1)
    keys = sorted(pp)
    if name in ('Pareto', 'Uniform'):
        # Finite only while p's support lies in q's: the bounds are not differentiated.
        keys = [k for k in keys if k not in ('scale', 'low', 'high')]
    if not keys:
        return

    def f(*values):
        p = cls(**dict(pp, **dict(zip(keys, values[:len(keys)]))))
        q = cls(**dict(qp, **dict(zip(keys, values[len(keys):]))))
        return chainlite.kl_divergence(p, q)

    testing.check_grads(f, tuple(pp[k] for k in keys) + tuple(qp[k] for k in keys))


def test_poisson_and_geometric_exact_sums():
    # Discrete distributions: the KL as a truncated exact sum.
    for cls, make, support in ((D.Poisson, PAIRS['Poisson'][1], np.arange(0, 80)),
                               (D.Geometric, PAIRS['Geometric'][1], np.arange(1, 200))):
        p, q = cls(**make(0)), cls(**make(1))
        x = support.reshape(-1, 1, 1) * np.ones(SHAPE)
        lp, lq = p.log_prob(x).array, q.log_prob(x).array
        np.testing.assert_allclose(chainlite.kl_divergence(p, q).array,
                                   (np.exp(lp) * (lp - lq)).sum(axis=0), rtol=1e-8)


def test_outside_support_is_infinite():
    p = D.Uniform(low=np.zeros(2), high=np.array([1.0, 3.0]))
    q = D.Uniform(low=np.zeros(2), high=np.array([2.0, 2.0]))
    kl = chainlite.kl_divergence(p, q).array
    assert np.isfinite(kl[0]) and kl[1] == np.inf
    p = D.Pareto(np.array([1.0, 2.0]), np.ones(2))
    q = D.Pareto(np.array([1.5, 1.5]), np.ones(2))
    kl = chainlite.kl_divergence(p, q).array
    assert kl[0] == np.inf and np.isfinite(kl[1])


def test_independent():
    cls, make = PAIRS['Normal']
    p, q = D.Independent(cls(**make(0))), D.Independent(cls(**make(1)))
    kl = chainlite.kl_divergence(p, q)
    np.testing.assert_allclose(
        kl.array, chainlite.kl_divergence(p.distribution, q.distribution).array.sum(-1))
    with pytest.raises(ValueError, match='event shapes'):
        chainlite.kl_divergence(p, D.Independent(cls(**make(1)), 0))


def test_unregistered_pair_and_subclasses():
    n = D.Normal(np.zeros(1), np.ones(1))
    with pytest.raises(TypeError, match='no KL divergence is registered between Normal and '
                                        'Gamma'):
        chainlite.kl_divergence(n, D.Gamma(np.ones(1), np.ones(1)))

    class MyNormal(D.Normal):
        pass

    # A subclass inherits its base class's registration.
    m = MyNormal(np.ones(1), np.ones(1))
    np.testing.assert_allclose(chainlite.kl_divergence(m, n).array, [0.5])

    @chainlite.register_kl(MyNormal, D.Normal)
    def _kl(p, q):
        return p.loc * 0 + 42.0

    try:
        assert chainlite.kl_divergence(m, n).array[0] == 42.0
    finally:
        del distribution._KLDIVERGENCE[MyNormal, D.Normal]


def test_cross_entropy():
    cls, make = PAIRS['Normal']
    p, q = cls(**make(0)), cls(**make(1))
    np.testing.assert_allclose(chainlite.cross_entropy(p, q).array,
                               p.entropy.array + chainlite.kl_divergence(p, q).array)
    np.testing.assert_allclose(chainlite.cross_entropy(p, q).array, -_mc_cross(p, q), rtol=0.02)


def _mc_cross(p, q):
    np.random.seed(0)
    return q.log_prob(p.sample(100000)).array.mean(axis=0)
