"""The ``chainer`` import hook of :mod:`chainlite.compat`: mapping, errors, install/uninstall."""
import os
import subprocess
import sys
import types
import unittest

import numpy as np
import pytest

import chainlite
from chainlite import compat
from chainlite.compat import chainerx as compat_chainerx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def hook():
    compat.install()
    try:
        yield
    finally:
        compat.uninstall()


def _run(*args):
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(filter(None, [ROOT, env.get('PYTHONPATH')]))
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)


def test_chainer_is_chainlite(hook):
    import chainer
    import chainer.functions
    assert chainer.__name__ == 'chainer' and chainer.__path__ == chainlite.__path__
    assert chainer.Variable is chainlite.Variable
    assert chainer.functions is chainlite.functions
    assert chainer.functions.relu is chainlite.functions.relu
    assert chainer.config is chainlite.config
    assert 'Variable' in dir(chainer) and chainer.__all__ == chainlite.__all__


def test_chainer_reports_chainer_version_and_chainlite_its_own(hook):
    import chainer
    import chainermn
    from chainer import testing
    assert chainer.__version__ == chainermn.__version__ == compat.CHAINER_VERSION == '7.8.1'
    assert chainlite.__version__ == chainlite._version.__version__ != '7.8.1'
    assert chainlite.distributed.__version__ == chainlite.__version__
    # Old code gated on the version takes Chainer 7's branch.
    assert int(chainer.__version__.split('.')[0]) >= 7

    class T(unittest.TestCase):
        @testing.with_requires('chainer>=7')
        def test_new(self):
            pass

        @testing.with_requires('chainer<7')
        def test_old(self):
            pass

        @testing.with_requires('chainermn>=7.8')
        def test_mn(self):
            pass

    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(T).run(result)
    assert [t.id().rsplit('.', 1)[1] for t, _ in result.skipped] == ['test_old']
    assert result.testsRun == 3 and not result.errors and not result.failures


def test_with_requires_chainer_skips_without_the_hook():
    from chainlite import testing

    class T(unittest.TestCase):
        @testing.with_requires('chainer>=7')
        def test_new(self):
            pass

    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(T).run(result)
    import importlib.metadata
    try:
        importlib.metadata.version('chainer')
    except importlib.metadata.PackageNotFoundError:
        assert len(result.skipped) == 1  # no Chainer distribution and no hook


def test_writes_through_chainer_reach_chainlite(hook):
    import chainer
    from unittest import mock
    marker = object()
    with mock.patch.object(chainer, 'Variable', marker):
        assert chainlite.Variable is marker
    assert chainer.Variable is chainlite.Variable is not marker
    with mock.patch('chainer.config', marker):
        assert chainlite.config is marker
    assert chainer.config is chainlite.config is not marker
    chainer.some_user_attribute = 3
    try:
        assert chainlite.some_user_attribute == 3
    finally:
        del chainer.some_user_attribute
    assert not hasattr(chainlite, 'some_user_attribute')


def test_from_imports_give_the_chainlite_modules(hook):
    from chainer import training
    from chainer.training import extensions
    import chainer.links as L
    import chainer.backends.cuda
    from chainer.functions.activation import relu
    assert training is chainlite.training
    assert extensions is chainlite.training.extensions
    assert L is chainlite.links
    assert chainer.backends.cuda is chainlite.backends.cuda
    assert relu is sys.modules['chainlite.functions.activation.relu']
    import chainer.training.extensions
    assert sys.modules['chainer.training.extensions'] is chainlite.training.extensions


def test_chainer_cuda_is_the_cuda_backend(hook):
    import chainer
    from chainer import cuda
    assert cuda is chainlite.backends.cuda
    assert chainer.cuda is cuda
    assert cuda.to_cpu(np.ones(2)).shape == (2,)


def test_chainerx_is_the_compat_module(hook):
    import chainer
    import chainerx
    assert chainerx is compat_chainerx
    assert not chainerx.is_available()
    assert chainer.get_device('@numpy').xp is not chainerx
    assert not isinstance(np.zeros(3), chainerx.ndarray)
    assert not isinstance(chainer.Variable(np.zeros(3)).array, chainerx.ndarray)


def test_chainerx_names():
    for cls in (compat_chainerx.ndarray, compat_chainerx.Device, compat_chainerx.Backend):
        with pytest.raises(RuntimeError, match='ChainerX is not available'):
            cls()
    for f in (compat_chainerx.get_device, compat_chainerx.get_default_device,
              compat_chainerx.using_device):
        with pytest.raises(RuntimeError, match='ChainerX is not available'):
            f()
    with pytest.raises(AttributeError, match='chainerx.asarray is not implemented by chainlite'):
        compat_chainerx.asarray


def test_missing_module_says_not_implemented(hook):
    with pytest.raises(ImportError, match=r'chainer\.links\.theano is not implemented '
                                          r'by chainlite'):
        import chainer.links.theano.theano_function  # noqa: F401
    with pytest.raises(ModuleNotFoundError, match='chainer.exporters.onnx is not implemented'):
        import chainer.exporters.onnx  # noqa: F401
    with pytest.raises(ImportError, match="'chainerx' is not a package"):
        import chainerx._core  # noqa: F401


def test_missing_attribute_says_not_implemented(hook):
    import chainer
    import chainer.links as L
    with pytest.raises(AttributeError, match=r'chainer\.links\.TheanoFunction is not implemented '
                                             r'by chainlite'):
        L.TheanoFunction
    with pytest.raises(AttributeError, match='chainer.no_such_name is not implemented'):
        chainer.no_such_name
    # A module of a package is there without an import, as Chainer's packages import them all.
    assert chainer.functions.math.identity.Identity is not None
    with pytest.raises(AttributeError, match='chainer.functions.math.no_such_module is not'):
        chainer.functions.math.no_such_module
    assert not hasattr(chainer.functions, 'no_such_function')
    with pytest.raises(AttributeError, match='has no attribute'):
        chainer.__wrapped__          # dunders keep Python's message


def test_existing_module_getattr_still_works(hook):
    import chainer
    with pytest.warns(DeprecationWarning):
        hook_class = chainer.optimizer.WeightDecay
    assert hook_class is chainlite.optimizer_hooks.WeightDecay
    with pytest.raises(AttributeError, match='chainer.optimizer.Nope is not implemented'):
        chainer.optimizer.Nope


def test_submodules_are_attributes_of_their_package():
    # Chainer's packages import every submodule, so its code reads
    # ``chainer.functions.array.flip._flip`` with no import: a fresh process shows it works.
    code = ('from chainlite import compat; compat.install(); import sys, chainer; '
            'assert "chainlite.functions.noise.dropout" not in sys.modules; '
            'm = chainer.functions.noise.dropout; print(m.__name__, m.Dropout.__name__); '
            'print(chainer.functions.array.flip.__name__)')
    result = _run('-c', code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ['chainlite.functions.noise.dropout', 'Dropout',
                                     'chainlite.functions.array.flip']


def test_uninstall_restores_sys_modules_and_modules():
    before = {k: v for k, v in sys.modules.items() if k.split('.')[0] in ('chainer', 'chainerx')}
    fake = types.ModuleType('chainer')
    sys.modules['chainer'] = fake              # as if a real Chainer had been imported
    try:
        meta_path = list(sys.meta_path)
        compat.install()
        compat.install()                       # twice: no effect
        assert compat.is_installed()
        assert len(sys.meta_path) == len(meta_path) + 1
        import chainer
        from chainer import cuda  # noqa: F401
        import chainer.sequential  # noqa: F401
        import chainerx  # noqa: F401
        assert chainer.Link is chainlite.Link and chainer.cuda is chainlite.backends.cuda
        compat.uninstall()
        compat.uninstall()                     # twice: no effect
        assert not compat.is_installed()
        assert sys.meta_path == meta_path
        assert sys.modules['chainer'] is fake
        assert not [k for k in sys.modules if k.startswith('chainer.') or k == 'chainerx']
        # Back to the packages' own lazy-import __getattr__.
        assert vars(chainlite)['__getattr__'].__module__ == 'chainlite._lazy'
        assert vars(chainlite.links)['__getattr__'].__module__ == 'chainlite._lazy'
        assert not hasattr(chainlite, 'cuda') and not hasattr(chainlite, 'sequential')
        assert vars(chainlite.optimizer)['__getattr__'].__module__ == 'chainlite.optimizer'
        with pytest.raises(AttributeError, match="no attribute 'TheanoFunction'"):
            chainlite.links.TheanoFunction
    finally:
        compat.uninstall()
        sys.modules.pop('chainer', None)
        sys.modules.update(before)


def test_names_map_both_ways():
    assert compat.chainlite_name('chainer') == 'chainlite'
    assert compat.chainlite_name('chainer.training.extensions') == \
        'chainlite.training.extensions'
    assert compat.chainlite_name('chainerx') == 'chainlite.compat.chainerx'
    assert compat.chainlite_name('chainerx.random') is None
    assert compat.chainlite_name('chainerfoo') is None
    assert compat.chainer_name('chainlite') == 'chainer'
    assert compat.chainer_name('chainlite.links.connection.linear') == \
        'chainer.links.connection.linear'
    assert compat.chainer_name('numpy') == 'numpy'


def test_other_imports_are_untouched(hook):
    import json
    assert json.__name__ == 'json'
    with pytest.raises(ModuleNotFoundError, match='No module named'):
        import chainerfoo  # noqa: F401


def test_import_chainlite_never_installs_the_hook():
    assert not compat.is_installed()
    assert not any(type(f).__module__ == 'chainlite.compat' for f in sys.meta_path)
    proc = _run('-c', 'import sys, chainlite, chainlite.compat\n'
                      'assert not chainlite.compat.is_installed()\n'
                      'assert "chainer" not in sys.modules\n'
                      'try:\n'
                      '    import chainer\n'
                      'except ImportError:\n'
                      '    print("no chainer")\n'
                      'else:\n'
                      '    assert chainer is not chainlite\n'
                      '    print("real chainer")\n')
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() in ('no chainer', 'real chainer')


def test_importing_a_submodule_keeps_the_function_of_the_same_name(hook):
    import chainer.dataset.tabular.from_data  # noqa: F401  (the submodule, first)
    import chainer.dataset.tabular
    from chainer.dataset.tabular import from_data
    module = sys.modules['chainer.dataset.tabular.from_data']
    assert callable(from_data) and from_data is module.from_data
    assert chainer.dataset.tabular.from_data is from_data
    assert chainlite.dataset.tabular.from_data is from_data


def test_uninstall_restores_the_module_class():
    compat.install()
    try:
        import chainer.dataset.tabular  # noqa: F401
        assert type(chainlite.dataset.tabular) is not types.ModuleType
    finally:
        compat.uninstall()
    assert type(chainlite.dataset.tabular) is types.ModuleType


def test_runtime_info_names_chainers_version_under_the_hook(hook):
    import io
    import chainer
    out = io.StringIO()
    chainer.print_runtime_info(out)
    lines = out.getvalue().splitlines()
    assert 'Chainer: 7.8.1 (chainlite standing in)' in lines
    assert 'chainlite: %s' % chainlite.__version__ in lines
