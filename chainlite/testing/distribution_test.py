"""``distribution_unittest``: a TestCase base that checks a distribution against SciPy.

A subclass defines ``setUp_configure`` setting ``self.dist`` (the class), ``self.params``
(its constructor arguments), ``self.scipy_dist`` and ``self.scipy_params`` (the SciPy
counterpart), ``self.test_targets`` (the members to check) and ``self.sample_for_test()``
(a realization of shape ``sample_shape + shape + event_shape``); and, as class or
parameterized attributes, ``shape``, ``sample_shape`` and ``is_variable``. Optional:
``self.options`` (extra constructor arguments), ``self.support``, ``self.event_shape``,
``self.continuous`` (False for pmf instead of pdf) and ``scipy_onebyone`` (SciPy
evaluated one batch element at a time, for multivariate SciPy distributions).

Example:
    >>> import numpy as np
    >>> from scipy import stats
    >>> from chainlite import distributions, testing
    >>> class TestExponential(testing.distribution_unittest):
    ...     shape, sample_shape, is_variable = (2,), (3,), True
    ...     def setUp_configure(self):
    ...         lam = np.array([0.5, 2.0], np.float32)
    ...         self.dist, self.params = distributions.Exponential, {'lam': lam}
    ...         self.scipy_dist, self.scipy_params = stats.expon, {'scale': 1 / lam}
    ...         self.test_targets = {'log_prob', 'mean', 'cdf'}
    ...     def sample_for_test(self):
    ...         return np.random.uniform(0.1, 3, (3, 2)).astype(np.float32)
    >>> import io, unittest
    >>> suite = unittest.defaultTestLoader.loadTestsFromTestCase(TestExponential)
    >>> result = unittest.TextTestRunner(stream=io.StringIO()).run(suite)
    >>> result.wasSuccessful(), result.testsRun - len(result.skipped)
    (True, 3)
"""
from __future__ import annotations

import functools
import math
import unittest
from typing import TYPE_CHECKING, Any, Callable, Iterator

import numpy

from chainlite import variable
from chainlite.backends import cuda
from chainlite.testing import array
from chainlite.testing import attr

_TARGETS = frozenset({
    'batch_shape', 'cdf', 'entropy', 'event_shape', 'icdf', 'log_cdf', 'log_prob',
    'log_survival', 'mean', 'prob', 'sample', 'stddev', 'support', 'survival', 'variance'})
_N_SAMPLES = 100000


def _target(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def decorate(check: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(check)
        def test(self: Any) -> None:
            if name not in self.test_targets:
                self.skipTest('%r is not in test_targets' % name)
            check(self)
        return test
    return decorate


def _data(v: Any) -> Any:
    return v.array if isinstance(v, variable.Variable) else v


def _on(x: Any, is_gpu: bool) -> Any:
    # A test input, sent to the GPU for the GPU tests.
    return cuda.to_gpu(x) if is_gpu else x


def _gpu_test(name: str, check: Callable[[Any], None]) -> Callable[[Any], None]:
    # test_<name>_gpu: skipped, with the reason, unless a GPU can be used when it runs.
    @_target(name)
    def test(self: Any) -> None:
        reason = attr._gpu_skip_reason()
        if reason is not None:
            self.skipTest(reason)
        check(self)
    test.__name__ = 'test_%s_gpu' % name
    test.__doc__ = 'The %s test on the GPU.' % name
    return test


class distribution_unittest(unittest.TestCase):
    """Base TestCase comparing a chainlite distribution with its SciPy counterpart."""

    scipy_onebyone = False
    # Set by subclasses (class attributes or setUp_configure), as the module docstring says.
    shape: tuple[int, ...]
    sample_shape: tuple[int, ...]
    is_variable: bool
    dist: Any
    params: dict[str, Any]
    scipy_dist: Any
    scipy_params: dict[str, Any]
    test_targets: set[str]
    options: dict[str, Any]
    support: str
    event_shape: tuple[int, ...]
    continuous: bool

    if TYPE_CHECKING:
        def sample_for_test(self) -> Any:
            """A realization of shape ``sample_shape + shape + event_shape`` (subclasses)."""

    def setUp(self) -> None:
        self.support = 'real'
        if not hasattr(self, 'event_shape'):
            self.event_shape = ()
        self.continuous = True
        self.test_targets = set()
        self.options = {}
        self.setUp_configure()
        unknown = set(self.test_targets) - _TARGETS
        if unknown:
            raise ValueError('distribution_unittest: invalid target(s): %s' % sorted(unknown))
        if self.is_variable:
            self.params = {k: variable.Variable(v) for k, v in self.params.items()}

    def setUp_configure(self) -> None:
        """Sets the distribution, its parameters and the SciPy reference (override)."""
        raise unittest.SkipTest('%s defines no setUp_configure' % type(self).__name__)

    @property
    def cpu_dist(self) -> Any:
        """A fresh distribution built from ``params`` and ``options``."""
        kwargs = dict(self.params)
        kwargs.update(self.options)
        return self.dist(**kwargs)

    @property
    def gpu_dist(self) -> Any:
        """A fresh distribution built from ``params`` sent to the GPU, and ``options``.

        Raises:
            RuntimeError: No GPU can be used.
        """
        kwargs: dict[str, Any] = {
            k: variable.Variable(cuda.to_gpu(v.array)) if isinstance(v, variable.Variable)
            else cuda.to_gpu(v) for k, v in self.params.items()}
        kwargs.update(self.options)
        return self.dist(**kwargs)

    def _dist(self, is_gpu: bool) -> Any:
        return self.gpu_dist if is_gpu else self.cpu_dist

    def scipy_onebyone_params_iter(self) -> Iterator[dict[str, Any]]:
        """Yields the SciPy parameters of each batch element in turn."""
        for index in numpy.ndindex(*self.shape):
            yield {k: v[index] for k, v in self.scipy_params.items()}

    def _scipy_stat(self, name: str, trailing: tuple[int, ...] = ()) -> Any:
        method = getattr(self.scipy_dist, name)
        if not self.scipy_onebyone:
            return method(**self.scipy_params)
        values = [method(**p) for p in self.scipy_onebyone_params_iter()]
        return numpy.asarray(values).reshape(self.shape + trailing)

    def _compare_at_sample(self, ours: str, scipy_name: str, is_gpu: bool) -> None:
        x = self.sample_for_test()
        got = _data(getattr(self._dist(is_gpu), ours)(_on(x, is_gpu)))
        array.assert_allclose(got, getattr(self.scipy_dist, scipy_name)(x, **self.scipy_params))

    # Each check_* takes ``is_gpu``: the test_*_cpu methods call it with False, the
    # test_*_gpu ones (run where a GPU is available, as Chainer's attr.gpu tests) with True;
    # subclasses written for Chainer may override them.

    def check_cdf(self, is_gpu: bool) -> None:
        self._compare_at_sample('cdf', 'cdf', is_gpu)

    def check_log_cdf(self, is_gpu: bool) -> None:
        self._compare_at_sample('log_cdf', 'logcdf', is_gpu)

    def check_survival(self, is_gpu: bool) -> None:
        self._compare_at_sample('survival_function', 'sf', is_gpu)

    def check_log_survival(self, is_gpu: bool) -> None:
        self._compare_at_sample('log_survival_function', 'logsf', is_gpu)

    def check_prob(self, is_gpu: bool) -> None:
        self._compare_at_sample('prob', 'pdf' if self.continuous else 'pmf', is_gpu)

    def check_icdf(self, is_gpu: bool) -> None:
        q = numpy.random.uniform(1e-5, 1 - 1e-5, self.sample_shape + self.shape).astype(
            numpy.float32)
        got = _data(self._dist(is_gpu).icdf(_on(q, is_gpu)))
        array.assert_allclose(got, self.scipy_dist.ppf(q, **self.scipy_params))

    def check_entropy(self, is_gpu: bool) -> None:
        array.assert_allclose(_data(self._dist(is_gpu).entropy), self._scipy_stat('entropy'))

    def check_mean(self, is_gpu: bool) -> None:
        dist = self._dist(is_gpu)
        array.assert_allclose(_data(dist.mean), self._scipy_stat('mean', dist.event_shape))

    def check_variance(self, is_gpu: bool) -> None:
        dist = self._dist(is_gpu)
        array.assert_allclose(_data(dist.variance), self._scipy_stat('var', dist.event_shape))

    def check_stddev(self, is_gpu: bool) -> None:
        array.assert_allclose(_data(self._dist(is_gpu).stddev),
                              self.scipy_dist.std(**self.scipy_params))

    def check_log_prob(self, is_gpu: bool) -> None:
        x = self.sample_for_test()
        got = _data(self._dist(is_gpu).log_prob(_on(x, is_gpu)))
        logp = self.scipy_dist.logpdf if self.continuous else self.scipy_dist.logpmf
        if not self.scipy_onebyone:
            expected = logp(x, **self.scipy_params)
        else:
            n_sample = math.prod(self.sample_shape)
            n_batch = math.prod(self.shape)
            per_batch = x.reshape((n_sample, n_batch) + self.event_shape).swapaxes(0, 1)
            rows = [numpy.asarray(logp(xs.reshape(self.sample_shape + self.event_shape), **p))
                    .reshape(n_sample)
                    for xs, p in zip(per_batch, self.scipy_onebyone_params_iter())]
            expected = numpy.stack(rows, axis=1).reshape(self.sample_shape + self.shape)
        array.assert_allclose(got, expected)

    def check_sample(self, is_gpu: bool) -> None:
        dist = self._dist(is_gpu)
        got = _data(dist.sample(sample_shape=(_N_SAMPLES,) + self.sample_shape))
        full = (_N_SAMPLES,) + self.sample_shape
        if not self.scipy_onebyone:
            ref = self.scipy_dist.rvs(size=full + self.shape, **self.scipy_params)
        else:
            draws = [numpy.asarray(self.scipy_dist.rvs(size=full, **p))
                     .reshape(full + dist.event_shape)
                     for p in self.scipy_onebyone_params_iter()]
            ref = numpy.stack(draws, axis=len(full)).reshape(
                full + self.shape + dist.event_shape)
        array.assert_allclose(got.mean(axis=0), ref.mean(axis=0), atol=3e-2, rtol=3e-2)
        array.assert_allclose(got.std(axis=0), ref.std(axis=0), atol=3e-2, rtol=3e-2)

    @_target('batch_shape')
    def test_batch_shape_cpu(self) -> None:
        self.assertEqual(self.cpu_dist.batch_shape, self.shape)

    @_target('event_shape')
    def test_event_shape_cpu(self) -> None:
        self.assertEqual(self.cpu_dist.event_shape, self.event_shape)

    @_target('support')
    def test_support_cpu(self) -> None:
        self.assertEqual(self.cpu_dist.support, self.support)

    @_target('cdf')
    def test_cdf_cpu(self) -> None:
        self.check_cdf(False)

    @_target('log_cdf')
    def test_log_cdf_cpu(self) -> None:
        self.check_log_cdf(False)

    @_target('survival')
    def test_survival_cpu(self) -> None:
        self.check_survival(False)

    @_target('log_survival')
    def test_log_survival_cpu(self) -> None:
        self.check_log_survival(False)

    @_target('prob')
    def test_prob_cpu(self) -> None:
        self.check_prob(False)

    @_target('icdf')
    def test_icdf_cpu(self) -> None:
        self.check_icdf(False)

    @_target('entropy')
    def test_entropy_cpu(self) -> None:
        self.check_entropy(False)

    @_target('mean')
    def test_mean_cpu(self) -> None:
        self.check_mean(False)

    @_target('variance')
    def test_variance_cpu(self) -> None:
        self.check_variance(False)

    @_target('stddev')
    def test_stddev_cpu(self) -> None:
        self.check_stddev(False)

    @_target('log_prob')
    def test_log_prob_cpu(self) -> None:
        self.check_log_prob(False)

    @_target('sample')
    def test_sample_cpu(self) -> None:
        self.check_sample(False)


_GPU_CHECKS: dict[str, Callable[[Any], None]] = {
    'batch_shape': lambda self: self.assertEqual(self.gpu_dist.batch_shape, self.shape),
    'event_shape': lambda self: self.assertEqual(self.gpu_dist.event_shape, self.event_shape),
    'support': lambda self: self.assertEqual(self.gpu_dist.support, self.support),
}
for _name in ('cdf', 'log_cdf', 'survival', 'log_survival', 'prob', 'icdf', 'entropy', 'mean',
              'variance', 'stddev', 'log_prob', 'sample'):
    _GPU_CHECKS[_name] = (lambda n: lambda self: getattr(self, 'check_' + n)(True))(_name)
for _name, _check in _GPU_CHECKS.items():
    setattr(distribution_unittest, 'test_%s_gpu' % _name, _gpu_test(_name, _check))
del _name, _check
