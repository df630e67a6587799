"""chainlite is typed: ``py.typed`` ships, ``mypy chainlite`` is clean, and user code is checked.

The mypy runs take a few seconds each (mypy's cache lives in a temporary folder, so every run
checks from scratch and no state leaks between runs).
"""
import importlib
import inspect
import os
import pkgutil
import re
import subprocess
import sys
import textwrap

import pytest

import chainlite
from chainlite import _lazy

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(chainlite.__file__)))

mypy_api = pytest.importorskip('mypy.api', reason='mypy is in the test extra')


def _mypy(*args, cwd):
    # Run in a subprocess: mypy.api is not re-entrant across differing configs.
    env = dict(os.environ, MYPYPATH=ROOT)
    proc = subprocess.run(
        [sys.executable, '-m', 'mypy', '--cache-dir', os.path.join(str(cwd), '.mypy_cache'),
         *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    return proc.returncode, proc.stdout + proc.stderr


def test_py_typed_ships_with_the_package():
    assert os.path.isfile(os.path.join(ROOT, 'chainlite', 'py.typed'))
    with open(os.path.join(ROOT, 'pyproject.toml'), encoding='utf-8') as f:
        assert '"py.typed"' in f.read()


@pytest.mark.parametrize('package', _lazy._LAZY_PACKAGES)
def test_lazy_packages_show_their_names_to_type_checkers(package):
    module = importlib.import_module(package)
    with open(module.__file__, encoding='utf-8') as f:
        source = f.read()
    start = source.index(_lazy._BEGIN) + len(_lazy._BEGIN)
    block = source[start:source.find('\n\n', start)].strip('\n')
    assert block == '\n'.join(_lazy.type_checking_imports(package, module._EXPORTS)), (
        'run: python -m chainlite._lazy')


def test_mypy_reports_nothing_on_chainlite():
    code, out = _mypy('--config-file', os.path.join(ROOT, 'pyproject.toml'),
                      os.path.join(ROOT, 'chainlite'), cwd=ROOT)
    assert code == 0, out


def test_mypy_finds_three_planted_errors_in_a_user_script(tmp_path):
    script = tmp_path / 'train.py'
    script.write_text(textwrap.dedent('''\
        import numpy as np
        import chainlite as chainer
        import chainlite.functions as F
        import chainlite.links as L

        model = L.Linear(3, 4)
        x = chainer.Variable(np.zeros((2, 3), np.float32))
        loss = F.sum(F.relu(model(x)))
        total: int = F.sum(loss)                     # planted: a Variable is not an int
        optimizer = chainer.optimizers.Adam(alpha="0.1")   # planted: alpha is a float
        optimizer.setup(model)
        F.softmax_cross_entropy(model(x), labels=np.zeros(2))  # planted: no such argument
        loss.backward()
        '''))
    code, out = _mypy('--no-incremental', str(script), cwd=tmp_path)
    assert code == 1, out
    lines = {int(m.group(1)) for m in re.finditer(r'train\.py:(\d+): error', out)}
    assert lines == {9, 10, 12}, out


def _public_modules():
    for info in pkgutil.walk_packages(chainlite.__path__, 'chainlite.'):
        if any(part.startswith('_') for part in info.name.split('.')[1:]):
            continue
        try:
            yield importlib.import_module(info.name)
        except ImportError:  # an optional dependency (onnx, mpi4py) is absent
            continue


def _unannotated(function, is_method):
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return []
    annotations = function.__annotations__
    if is_method and parameters and parameters[0].name in ('self', 'cls'):
        parameters = parameters[1:]
    missing = [p.name for p in parameters if p.name not in annotations]
    if 'return' not in annotations and function.__name__ != '__init__':
        missing.append('return')
    return missing


def test_every_public_function_and_method_is_annotated():
    gaps = []
    for module in _public_modules():
        for name, obj in vars(module).items():
            if name.startswith('_') or getattr(obj, '__module__', None) != module.__name__:
                continue
            if inspect.isfunction(obj):
                missing = _unannotated(obj, False)
                if missing:
                    gaps.append('%s.%s: %s' % (module.__name__, name, missing))
            elif inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if attr.startswith('_') and attr not in ('__init__', '__call__'):
                        continue
                    if isinstance(member, (staticmethod, classmethod)):
                        member = member.__func__
                    elif isinstance(member, property):
                        member = member.fget
                    # Methods Python adds itself (a Protocol's ``__init__``) are not ours.
                    if inspect.isfunction(member) and member.__qualname__.startswith(
                            obj.__qualname__ + '.'):
                        missing = _unannotated(member, True)
                        if missing:
                            gaps.append('%s.%s.%s: %s' % (module.__name__, name, attr,
                                                          missing))
    assert not gaps, '%d public functions lack annotations:\n%s' % (
        len(gaps), '\n'.join(gaps[:50]))
