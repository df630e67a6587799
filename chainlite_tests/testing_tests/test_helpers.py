import io
import random
import unittest

import numpy as np
import pytest

import chainlite.links as L
from chainlite import testing
from chainlite.testing import attr
from chainlite.testing import condition

_seen = []


@testing.parameterize(*testing.product({'n': [1, 2], 'dtype': [np.float32, np.float64]}))
class TestParameterizedUnittest(unittest.TestCase):

    def test_attributes(self):
        assert np.zeros(self.n, self.dtype).shape == (self.n,)
        _seen.append((self.n, self.dtype))


@testing.parameterize({'f': abs, 'g': lambda x: -x})
class TestParameterizedPytest:

    def test_callables(self):
        assert self.f(-2) == 2 and self.g(3) == -3


def test_generated_classes_live_in_module():
    import sys
    module = sys.modules[__name__]
    names = [c.__name__ for c in TestParameterizedUnittest.classes]
    assert len(names) == 4 and all(getattr(module, n) is c for n, c in
                                   zip(names, TestParameterizedUnittest.classes))
    assert names[0] == "TestParameterizedUnittest_param_0_{dtype=float32, n=1}"


def test_product_and_product_dict():
    assert testing.product({'a,b': [(1, 2), (3, 4)], 'c': [5]}) == [
        {'a': 1, 'b': 2, 'c': 5}, {'a': 3, 'b': 4, 'c': 5}]
    assert testing.product([[{'a': 1}, {'a': 2}], [{'b': 3}]]) == [
        {'a': 1, 'b': 3}, {'a': 2, 'b': 3}]
    assert testing.product_dict([{'a': 1}], []) == []
    with pytest.raises(TypeError):
        testing.product(3)
    with pytest.raises(TypeError):
        testing.parameterize(3)


def _run(cls):
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(cls)
    return unittest.TextTestRunner(stream=io.StringIO()).run(suite)


def test_failure_names_parameters():
    class Base(unittest.TestCase):
        def test_fail(self):
            assert self.x == 0

    bundle = testing.parameterize({'x': 1})(Base)
    result = _run(bundle.classes[0])
    assert 'Test parameters:' in result.failures[0][1] and 'x: 1' in result.failures[0][1]


def test_stacked_decorators_with_backend():
    class Base(unittest.TestCase):
        def test_config(self, backend_config):
            assert backend_config.xp is np and self.k == 1

        def test_plain(self):
            pass

    bundle = testing.parameterize({'k': 1})(
        testing.inject_backend_tests(['test_config'], [{}, {'use_ideep': 'always'}])(Base))
    assert len(bundle.classes) == 3
    results = [_run(c) for c in bundle.classes]
    assert [r.testsRun for r in results] == [1, 1, 1]
    assert all(r.wasSuccessful() for r in results) and len(results[2].skipped) == 1
    with pytest.raises(ValueError):
        testing.inject_backend_tests(None, [{'use_tpu': True}])(Base)


def test_fix_random_function_restores_state():
    np.random.seed(5)
    random.seed(5)
    before = np.random.get_state()[1].copy(), random.getstate()

    @testing.fix_random(seed=3)
    def draw():
        return np.random.rand(), random.random()

    assert draw() == draw()
    np.random.seed(3)
    assert draw()[0] == np.random.rand()
    np.random.seed(5)
    assert (np.random.get_state()[1] == before[0]).all()


def test_fix_random_class():
    @testing.fix_random()
    class Case(unittest.TestCase):
        def setUp(self):
            self.a = np.random.rand()

        def test_a(self):
            Case.values.append((self.a, np.random.rand()))

    Case.values = []
    _run(Case)
    _run(Case)
    assert Case.values[0] == Case.values[1]


@testing.fix_random()
class TestFixRandomPytestClass:
    def setup_method(self, method):
        self.a = np.random.rand()

    def test_seeded(self):
        np.random.seed(0)
        assert self.a == np.random.rand()


@attr.gpu
def test_gpu_marked():
    # Runs only where a GPU can be used (this suite has no GPU outside gpu_xp).
    from chainlite.backends import cuda
    assert cuda.available


@attr.multi_gpu(2)
class TestMultiGpu:
    def test_x(self):
        from chainlite.backends import cuda
        assert cuda.cupy.cuda.runtime.getDeviceCount() >= 2


@attr.slow
def test_slow_marked():
    raise AssertionError('deselected by the default -m "not slow"')


def test_attr_marks():
    # gpu and cudnn are checked when the test runs (chainlite_tests/gpu_tests run them).
    assert [m.name for m in test_gpu_marked.pytestmark] == ['gpu']
    assert test_slow_marked.pytestmark[0].name == 'slow'
    for deco in (attr.ideep, attr.chainerx):
        def f():
            pass
        f = deco(f)  # a named function: pytest marks take a lambda for a mark argument
        assert f.__unittest_skip__ and 'required' in f.__unittest_skip_why__
        assert 'skip' in {m.name for m in f.pytestmark}


def test_condition_retry_and_repeat():
    calls = []

    @condition.retry(3)
    def flaky():
        calls.append(1)
        assert len(calls) == 2

    flaky()
    assert len(calls) == 2

    @condition.repeat(3)
    def always_fails():
        calls.append(1)
        raise AssertionError('boom')

    with pytest.raises(AssertionError, match='failures: 1, successes: 0'):
        always_fails()

    @condition.repeat_with_success_at_least(4, 2)
    def skips():
        pytest.skip('why')

    # As in Chainer, pytest.skip() inside becomes a unittest.SkipTest with the same reason.
    with pytest.raises(unittest.SkipTest, match='why'):
        skips()

    with pytest.raises(AssertionError, match='The first error message:'):
        always_fails()
    with pytest.raises(AssertionError, match='min_success'):
        condition.repeat_with_success_at_least(10, 11)


def test_mock_updater_with_fractional_epochs():
    # 1.5 iterations per epoch: iterations 2 and 3 each start an epoch, as in Chainer.
    trainer = testing.get_trainer_with_mock_updater((5, 'iteration'), iter_per_epoch=1.5)
    seen = []
    trainer.extend(lambda t: seen.append((t.updater.is_new_epoch,
                                          t.updater.previous_epoch_detail)))
    trainer.run()
    assert [new for new, _ in seen] == [False, True, True, False, True]
    assert [p for _, p in seen] == [k / 1.5 for k in range(5)]


def test_product_dict_under_chainers_internal_name():
    from chainlite.testing import parameterized
    assert parameterized._product_dict_orig is testing.product_dict


def test_condition_unittest_fresh_instance():
    class Case(unittest.TestCase):
        setups = 0

        def setUp(self):
            Case.setups += 1

        @condition.repeat(3)
        def test_x(self):
            pass

    assert _run(Case).wasSuccessful()
    assert Case.setups == 4  # the runner's own setUp and one per trial


def test_save_and_load_npz():
    a, b = L.Linear(2, 3), L.Linear(2, 3)
    testing.save_and_load_npz(a, b)
    np.testing.assert_array_equal(a.W.array, b.W.array)


def test_trainer_with_mock_updater():
    seen = []
    trainer = testing.get_trainer_with_mock_updater((3, 'epoch'), iter_per_epoch=4)
    trainer.extend(lambda t: seen.append(t.updater.epoch_detail), trigger=(1, 'epoch'))
    trainer.run()
    assert trainer.updater.iteration == 12 and trainer.updater.update_core.call_count == 12
    assert seen == [1.0, 2.0, 3.0]


def test_run_module():
    assert testing.run_module('not_main', __file__) is None
