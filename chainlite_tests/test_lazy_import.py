"""``import chainlite`` loads the core only; the rest is imported on first use."""
import os
import subprocess
import sys

import pytest

from chainlite import _lazy

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _modules_after(code):
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(filter(None, [ROOT, env.get('PYTHONPATH')]))
    code += '\nimport sys\nprint(" ".join(sys.modules))'
    proc = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    return set(proc.stdout.split())


def test_import_chainlite_loads_the_core_only():
    modules = _modules_after('import chainlite')
    for heavy in ('chainlite.testing', 'unittest.mock', 'asyncio', 'chainlite.training',
                  'chainlite.links', 'chainlite.optimizers', 'chainlite.datasets', 'scipy'):
        assert heavy not in modules, heavy
    assert 'chainlite.variable' in modules and 'chainlite.function_node' in modules
    assert len([m for m in modules if m.startswith('chainlite')]) < 80


def test_names_resolve_on_first_use():
    modules = _modules_after(
        'import numpy as np, chainlite\n'
        'y = chainlite.functions.relu(np.ones(2, np.float32))\n'
        'assert y.array.tolist() == [1.0, 1.0]\n'
        'assert chainlite.links.Linear(2, 3).W.shape == (3, 2)\n'
        'assert chainlite.Chain is chainlite.link.Chain\n'
        'assert chainlite.using_config is chainlite.configuration.using_config\n'
        'from chainlite.functions import *\n'
        'assert softmax is chainlite.functions.softmax\n')
    assert 'chainlite.functions.activation.relu' in modules
    assert 'chainlite.testing' not in modules


def test_every_listed_name_resolves():
    import chainlite
    import chainlite.functions as F
    import chainlite.links as L
    for package in (chainlite, F, L):
        for name in package.__all__:
            assert getattr(package, name) is not None, (package.__name__, name)
        assert set(package.__all__) <= set(dir(package))


def test_unknown_names_raise_attribute_error():
    import chainlite.functions as F
    with pytest.raises(AttributeError, match="'chainlite.functions' has no attribute 'nope'"):
        F.nope  # noqa: B018


def test_attach_imports_on_first_use_and_caches():
    getattr_, dir_, all_ = _lazy.attach('chainlite.functions', {'tanh': '.activation.tanh'})
    assert all_ == ['tanh'] and 'tanh' in dir_()
    f = getattr_('tanh')
    assert f.__module__ == 'chainlite.functions.activation.tanh'
    assert getattr_('activation').__name__ == 'chainlite.functions.activation'  # a subpackage
