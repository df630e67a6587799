"""Names added so that every Chainer 7.8.1 module-level name resolves (test_chainer_names.py).

Each test checks what the name does, as Chainer does it without a GPU.
"""
import importlib
import unittest
import warnings

import numpy as np
import pytest



def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


# -- the five names libraries were found to need ------------------------------------------------

def test_attr_check_available_and_dummy_callable(chainer):
    from chainer.testing import attr
    assert attr.is_available() is True and attr.get_error() is None
    assert attr.check_available() is None
    with pytest.raises(AssertionError):
        attr._dummy_callable()


def test_attr_check_available_raises_without_pytest(monkeypatch):
    from chainlite.testing import attr
    monkeypatch.setattr(attr, '_checked', True)
    monkeypatch.setattr(attr, '_error', ImportError('No module named pytest'))
    assert not attr.is_available()
    with pytest.raises(RuntimeError, match='(?s)not available.*ImportError: No module named'):
        attr.check_available()
    with pytest.raises(RuntimeError):
        attr._dummy_callable(lambda: None)


def test_testing_training_is_always_available(chainer):
    from chainer.testing import training
    assert training.is_available() and training.get_error() is None
    training.check_available()


def test_gradient_check_assert_allclose_warns_and_compares(chainer):
    from chainer import gradient_check
    with pytest.warns(DeprecationWarning, match='testing.assert_allclose'):
        gradient_check.assert_allclose(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-6]))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        with pytest.raises(AssertionError):
            gradient_check.assert_allclose(np.array([1.0]), np.array([1.1]))
        # The tolerances are passed on, positionally as in Chainer.
        gradient_check.assert_allclose(np.array([1.0]), np.array([1.1]), 0.2, 0)


def test_link_device_id_is_none_on_the_cpu(chainer):
    link = chainer.links.Linear(2, 3)
    with pytest.warns(DeprecationWarning, match='_device_id'):
        assert link._device_id is None
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        assert chainer.Chain()._device_id is None
        link.to_device('@numpy')
        assert link._device_id is None


def test_function_backprop_mode_aliases(chainer):
    import chainer.function as function
    assert function.no_backprop_mode is chainer.no_backprop_mode
    assert function.force_backprop_mode is chainer.force_backprop_mode
    assert function.FunctionHook is chainer.FunctionHook
    x = chainer.Variable(np.array([1.0, 2.0]))
    with function.no_backprop_mode():
        y = x * 2
        with function.force_backprop_mode():
            z = x * 3
    assert y.creator is None and z.creator is not None


@pytest.mark.parametrize('batch,n_in,n_units', [(3, 4, 5), (1, 2, 1)])
def test_n_step_lstm_private_lstm_is_one_step(chainer, batch, n_in, n_units):
    from chainer.functions.rnn.n_step_lstm import _lstm
    F = chainer.functions
    rng = np.random.RandomState(0)
    w = [rng.randn(n_units, n_in) for _ in range(4)] + \
        [rng.randn(n_units, n_units) for _ in range(4)]
    b = [rng.randn(n_units) for _ in range(8)]
    x, h, c = rng.randn(batch, n_in), rng.randn(batch, n_units), rng.randn(batch, n_units)
    h1, c1 = _lstm(x, h, c, w, b)
    # Gates i, f, a (candidate), o from x @ W_k.T + h @ W_{k+4}.T + b_k + b_{k+4}.
    g = [x @ w[k].T + h @ w[k + 4].T + b[k] + b[k + 4] for k in range(4)]
    c_ref = _sigmoid(g[1]) * c + _sigmoid(g[0]) * np.tanh(g[2])
    h_ref = _sigmoid(g[3]) * np.tanh(c_ref)
    np.testing.assert_allclose(c1.array, c_ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(h1.array, h_ref, rtol=1e-12, atol=1e-12)
    # The same step as a one-layer n_step_lstm over one time step.
    hy, cy, _ = F.n_step_lstm(1, 0.0, h[None], c[None], [w], [b], [x])
    np.testing.assert_allclose(hy.array[0], h1.array, rtol=1e-12)
    np.testing.assert_allclose(cy.array[0], c1.array, rtol=1e-12)
    # Differentiable through x, h, c and the weights.
    xv = chainer.Variable(x)
    hv, cv = _lstm(xv, h, c, w, b)
    F.sum(hv + cv).backward()
    assert xv.grad.shape == x.shape and np.all(np.isfinite(xv.grad))


def test_n_step_lstm_private_lstm_gradients():
    from chainlite import gradient_check
    from chainlite.functions.rnn.n_step_lstm import _lstm
    rng = np.random.RandomState(1)
    x, h, c = rng.randn(2, 3), rng.randn(2, 2), rng.randn(2, 2)
    w = [rng.randn(2, 3) for _ in range(4)] + [rng.randn(2, 2) for _ in range(4)]
    b = [rng.randn(2) for _ in range(8)]

    def f(x, h, c, *wb):
        return _lstm(x, h, c, list(wb[:8]), list(wb[8:]))

    gy = (rng.randn(2, 2), rng.randn(2, 2))
    gradient_check.check_backward(f, (x, h, c, *w, *b), gy, dtype=np.float64)


# -- the sweep: re-exports under Chainer's module names ------------------------------------------

@pytest.mark.parametrize('module,name,target', [
    ('chainer.functions.activation.clipped_relu', 'relu6', 'relu6'),
    ('chainer.functions.activation.log_softmax', 'logsumexp', 'logsumexp'),
    ('chainer.functions.loss.squared_error', 'squared_difference', 'squared_difference'),
    ('chainer.functions.math.det', 'batch_det', 'batch_det'),
    ('chainer.functions.math.inv', 'batch_inv', 'batch_inv'),
    ('chainer.functions.math.fft', 'ifft', 'ifft'),
    ('chainer.functions.math.sqrt', 'rsqrt', 'rsqrt'),
    ('chainer.functions.math.sum', 'sum_to', 'sum_to'),
    ('chainer.functions.normalization.batch_normalization', 'fixed_batch_normalization',
     'fixed_batch_normalization'),
    ('chainer.functions.pooling.max_pooling_nd', 'max_pooling_2d', 'max_pooling_2d'),
    ('chainer.functions.util.forget', 'forget', 'forget'),
])
def test_functions_reexported_where_chainer_defines_them(chainer, module, name, target):
    m = importlib.import_module(module)
    assert getattr(m, name) is getattr(chainer.functions, target)
    assert name in dir(m)
    exec('from %s import %s' % (module, name), {})


def test_reexports_still_say_what_is_missing(chainer):
    import chainer.functions.math.sum as sum_module
    with pytest.raises(AttributeError, match='no_such_name'):
        sum_module.no_such_name


def test_forget_call_func_checks_the_outputs(chainer):
    from chainer.functions.util.forget import _call_func
    x = chainer.Variable(np.array([1.0, 2.0]))
    y = _call_func(lambda a: a * 2, (x,))
    np.testing.assert_array_equal(y.array, [2.0, 4.0])
    with pytest.raises(RuntimeError, match='Variable'):
        _call_func(lambda a: 1, (x,))


def test_core_reexports(chainer):
    import chainer._backprop
    import chainer.function_node
    import chainer.training.trigger
    import chainer.training.updater
    import chainer.training._updater
    assert chainer.function_node.grad is chainer.grad
    assert chainer._backprop.backward is chainer.backward
    assert chainer.training.trigger.IntervalTrigger is chainer.training.triggers.IntervalTrigger
    assert chainer.training.trigger.get_trigger is chainer.training.get_trigger
    assert chainer.training.updater.StandardUpdater is chainer.training.StandardUpdater
    assert chainer.training.updater.ParallelUpdater is chainer.training.ParallelUpdater
    assert chainer.training._updater.Updater is chainer.training.Updater
    assert chainer.testing.BackendConfig is chainer.testing.backend.BackendConfig
    x = chainer.Variable(np.array(3.0))
    gx, = chainer.function_node.grad([x * x], [x])
    assert gx.array == 6.0


def test_chainermn_function_modules(chainer):
    import chainermn.functions as mnF
    from chainermn.functions import collective_communication as cc
    from chainermn.functions import point_to_point_communication as p2p
    for name in ('allgather', 'alltoall', 'bcast', 'gather', 'scatter'):
        assert getattr(cc, name) is getattr(mnF, name)
    assert p2p.send is mnF.send and p2p.recv is mnF.recv
    assert issubclass(cc.AllGather, chainer.FunctionNode) and issubclass(p2p.Send,
                                                                            chainer.FunctionNode)


def test_performance_warning_and_cuda_device_spec(chainer):
    import chainer.types
    import chainer.warnings
    assert issubclass(chainer.warnings.PerformanceWarning, RuntimeWarning)
    assert int in chainer.types.CudaDeviceSpec.__args__


def test_make_deprecation_message(chainer):
    import chainer.optimizer
    assert chainer.optimizer.make_deprecation_message('WeightDecay') == (
        'chainer.optimizer.WeightDecay is deprecated from v4. '
        'Use chainer.optimizer_hooks.WeightDecay instead.')


# -- chainer.backends.cuda without a GPU ---------------------------------------------------------

def test_cuda_names_behave_as_chainer_without_cupy(chainer):
    from chainer.backends import cuda
    with cuda.Device(0) as d:
        assert isinstance(d, cuda.Device)
    assert cuda.get_max_workspace_size() == 0
    assert cuda.set_max_workspace_size(1 << 20) is None
    assert cuda.get_max_workspace_size() == 0
    with pytest.warns(DeprecationWarning, match='get_device'):
        assert cuda.get_device(np.zeros(2), None) is cuda.DummyDevice
    assert cuda._get_cuda_device(True) is cuda.DummyDevice  # a bool is not a device id
    with pytest.raises(RuntimeError, match='CUDA is not available'):
        cuda._get_cuda_device(np.zeros(1), 0)
    with pytest.raises(ValueError, match='Invalid CUDA device'):
        cuda._get_device_or_current(-1)
    a = np.arange(3.0)
    assert cuda._array_to_cpu(a, None) is a and cuda._array_to_cpu(None, None) is None
    with pytest.raises(RuntimeError, match='cuDNN is not enabled'):
        cuda.get_cudnn_dropout_states()
    for call in (lambda: cuda.copy(a), lambda: cuda.elementwise('T x', 'T y', 'y = x', 'k'),
                 lambda: cuda.reduce('T x', 'T y', 'x', 'a + b', 'y = a', '0', 'k'),
                 lambda: cuda.raw('', 'k'), lambda: cuda._array_to_gpu(a, 0, None),
                 lambda: cuda._get_device_or_current(None)):
        with pytest.raises(RuntimeError, match='CUDA is not available'):
            call()
    with pytest.raises(RuntimeError, match='cuDNN dropout states are not used'):
        cuda.get_cudnn_dropout_states_core(0)
    assert issubclass(cuda._PerformanceWarning, Warning)


# -- chainer.utils ------------------------------------------------------------------------------

def test_final_raises_or_warns_on_override(chainer):
    from chainer import utils

    class Base(utils.enable_final()):
        @utils.final
        def run(self):
            return 1

        @utils.final(action=UserWarning)
        def soft(self):
            return 2

    with pytest.raises(TypeError, match="'run' is final"):
        class Bad(Base):
            def run(self):
                return 3
    with pytest.warns(UserWarning, match="Overriding method 'soft'"):
        class Soft(Base):
            def soft(self):
                return 4
    assert Soft().soft() == 4 and Soft().run() == 1

    class Other(Base):
        def other(self):
            return 5
    assert Other().other() == 5


def test_enable_final_with_bases_and_metaclasses():
    import abc
    from chainlite.utils import meta

    class Mixin:
        def hello(self):
            return 'hi'

    Base = meta.enable_final(base=Mixin, meta_base=abc.ABCMeta)
    assert issubclass(Base, Mixin) and isinstance(Base, abc.ABCMeta)

    class Child(Base):
        @abc.abstractmethod
        def f(self):
            pass
    with pytest.raises(TypeError):
        Child()
    with pytest.raises(TypeError):
        meta.final(lambda: None, lambda: None)


def test_nondeterministic_warns_only_when_asked(chainer):
    from chainer.utils import nondeterministic
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        nondeterministic('F.scatter_add')  # off by default: silent
    with chainer.using_config('warn_nondeterministic', True):
        with pytest.warns(UserWarning, match='F.scatter_add'):
            nondeterministic('F.scatter_add')


def test_oversample_ten_crops():
    from chainlite.utils.imgproc import oversample
    rng = np.random.RandomState(0)
    images = [rng.rand(3, 5, 6).astype(np.float32) for _ in range(2)]
    crops = oversample(images, (3, 4))
    assert crops.shape == (20, 3, 3, 4) and crops.dtype == np.float32
    for i, img in enumerate(images):
        expected = [img[:, :3, :4], img[:, :3, 2:], img[:, 2:, :4], img[:, 2:, 2:],
                    img[:, 1:4, 1:5]]
        for k in range(5):
            np.testing.assert_array_equal(crops[10 * i + k], expected[k])
            np.testing.assert_array_equal(crops[10 * i + 5 + k], expected[k][:, :, ::-1])
    with pytest.raises(ValueError):
        oversample(images, (6, 6))


def test_error_format_and_ordered_dict():
    import collections
    from chainlite.utils import _collections, error
    assert error._format_array_props([np.zeros((2,), np.int32), None]) == '(2,):int32, None'
    with pytest.raises(TypeError):
        error._format_array_props(np.zeros(2))
    assert _collections.OrderedDict is collections.OrderedDict


# -- chainer.testing ----------------------------------------------------------------------------

def test_do_setup_and_do_teardown_restore_the_state(chainer):
    import random
    from chainer.testing import random as testing_random
    np.random.seed(7)
    random.seed(7)
    expected = (np.random.rand(), random.random())
    np.random.seed(7)
    random.seed(7)
    testing_random.do_setup()
    a = np.random.rand()
    testing_random.do_teardown()
    testing_random.do_setup()
    assert np.random.rand() == a  # seeded with 100 each time
    random.random()
    testing_random.do_teardown()
    assert (np.random.rand(), random.random()) == expected
    with pytest.raises(RuntimeError):
        testing_random.do_teardown()


def test_quiet_test_runner_and_doctest_helper(chainer, monkeypatch):
    from chainer.testing import condition, doctest_helper

    class T(unittest.TestCase):
        def test_ok(self):
            pass

        def test_skip(self):
            self.skipTest('no')
    result = condition.QuietTestRunner().run(
        unittest.defaultTestLoader.loadTestsFromTestCase(T))
    assert result.testsRun == 2 and len(result.skipped) == 1 and result.wasSuccessful()
    monkeypatch.delenv('READTHEDOCS', raising=False)
    assert doctest_helper.skipif(True) is True
    assert doctest_helper.skipif_requires_satisfied('numpy>=1') is True
    assert doctest_helper.skipif_requires_satisfied('numpy<1') is False
    monkeypatch.setenv('CHAINER_TEST_GPU_LIMIT', '0')
    assert doctest_helper.skipif_not_enough_cuda_devices(1) is True
    monkeypatch.setenv('CHAINER_TEST_GPU_LIMIT', '-1')
    assert doctest_helper.skipif_not_enough_cuda_devices(1) is False
    monkeypatch.setenv('READTHEDOCS', 'True')
    assert doctest_helper.skipif(True) is False


def test_distribution_test_private_module(chainer):
    from chainer.testing import _distribution_test
    assert _distribution_test.distribution_unittest is chainer.testing.distribution_unittest

    class T(unittest.TestCase):
        test_targets = {'mean'}

        @_distribution_test.skip_not_in_test_target('mean')
        def test_mean(self):
            pass

        @_distribution_test.skip_not_in_test_target('variance')
        def test_variance(self):
            raise AssertionError('not run')
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(T).run(result)
    assert result.testsRun == 2 and len(result.skipped) == 1 and result.wasSuccessful()


def test_importing_a_submodule_keeps_the_function_of_its_name():
    # chainer.utils.nondeterministic is a module and, in chainer.utils, a function: importing
    # the module under compat must not replace the function (a fresh interpreter: no alias yet).
    import subprocess
    import sys
    code = ('from chainlite import compat; compat.install()\n'
            'import sys, chainer.utils.nondeterministic\n'
            'import chainer.utils\n'
            'm = sys.modules[\'chainer.utils.nondeterministic\']\n'
            'assert callable(chainer.utils.nondeterministic), chainer.utils.nondeterministic\n'
            'assert m.nondeterministic is chainer.utils.nondeterministic\n')
    import os
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get(
        'PYTHONPATH')])))
    subprocess.run([sys.executable, '-c', code], check=True, timeout=120, env=env)
