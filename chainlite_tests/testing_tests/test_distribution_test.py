"""chainlite.testing.distribution_unittest: passes for a correct distribution, fails for a
wrong one, honours test_targets and overridden check_* methods."""
import io
import unittest

import numpy as np
from scipy import stats

from chainlite import distributions
from chainlite import testing


def _make_case(scipy_dist, targets, onebyone=False):
    class Case(testing.distribution_unittest):
        shape, sample_shape, is_variable = (2, 3), (4,), True
        scipy_onebyone = onebyone

        def setUp_configure(self):
            loc = np.linspace(-1, 1, 6).reshape(2, 3).astype(np.float32)
            scale = np.linspace(0.5, 2, 6).reshape(2, 3).astype(np.float32)
            self.dist = distributions.Normal
            self.params = {'loc': loc, 'scale': scale}
            self.scipy_dist = scipy_dist
            self.scipy_params = {'loc': loc, 'scale': scale}
            self.test_targets = set(targets)

        def sample_for_test(self):
            return np.random.normal(size=(4, 2, 3)).astype(np.float32)
    return Case


def _run(case):
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(case)
    return unittest.TextTestRunner(stream=io.StringIO()).run(suite)


ALL = ['batch_shape', 'cdf', 'entropy', 'event_shape', 'icdf', 'log_cdf', 'log_prob',
       'log_survival', 'mean', 'prob', 'sample', 'stddev', 'support', 'survival', 'variance']


def test_correct_distribution_passes():
    result = _run(_make_case(stats.norm, ALL))
    # 15 CPU tests, and 15 GPU tests skipped here (no GPU; gpu_tests run them).
    assert result.wasSuccessful() and result.testsRun == 30
    assert len(result.skipped) == 15
    assert all('CUDA GPU required' in why for _, why in result.skipped)


def test_onebyone_mode_passes():
    result = _run(_make_case(stats.norm, ['log_prob', 'mean', 'entropy', 'sample'], True))
    assert result.wasSuccessful() and len(result.skipped) == 11 + 15


def test_wrong_reference_fails():
    result = _run(_make_case(stats.laplace, ['log_prob', 'cdf', 'variance']))
    assert len(result.failures) == 3


def test_unknown_target_is_an_error():
    result = _run(_make_case(stats.norm, ['log_prob', 'median']))
    assert result.errors and 'invalid target' in result.errors[0][1]


def test_overridden_check_is_used():
    calls = []
    case = _make_case(stats.laplace, ['log_prob'])
    case.check_log_prob = lambda self, is_gpu: calls.append(is_gpu)
    assert _run(case).wasSuccessful() and calls == [False]
