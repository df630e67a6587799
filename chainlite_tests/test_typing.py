"""chainlite is typed: ``py.typed`` ships, ``mypy chainlite`` is clean, and user code is checked.

The mypy runs take a few seconds each (mypy's cache lives in a temporary folder, so every run
checks from scratch and no state leaks between runs). User scripts are checked the way a user
of the package has it: mypy finds chainlite through a plain ``sys.path`` entry, as the
``.pth`` file of ``pip install -e .`` adds one (here ``PYTHONPATH``, in the current
environment), or, in the slow test, in a fresh virtual environment after the README's
``pip install -e .`` and after a regular install of the wheel.
"""
import importlib
import inspect
import os
import pkgutil
import re
import subprocess
import sys
import textwrap
import zipfile

import pytest

import chainlite
from chainlite import _lazy

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(chainlite.__file__)))

mypy_api = pytest.importorskip('mypy.api', reason='mypy is in the test extra')


def _env(**paths):
    env = {k: v for k, v in os.environ.items() if k not in ('MYPYPATH', 'PYTHONPATH')}
    env.update(paths)
    return env


def _mypy(*args, cwd, cache, env=None):
    # Run in a subprocess: mypy.api is not re-entrant across differing configs.
    proc = subprocess.run(
        [sys.executable, '-m', 'mypy', '--cache-dir', os.path.join(str(cache), '.mypy_cache'),
         *args], cwd=cwd, env=_env() if env is None else env, capture_output=True, text=True,
        timeout=600)
    return proc.returncode, proc.stdout + proc.stderr


def test_py_typed_ships_with_the_package():
    # The wheel takes every file of chainlite/ that git does not ignore (the slow test below
    # opens a built wheel).
    assert os.path.isfile(os.path.join(ROOT, 'chainlite', 'py.typed'))


@pytest.mark.parametrize('package', _lazy._LAZY_PACKAGES)
def test_lazy_packages_show_their_names_to_type_checkers(package):
    module = importlib.import_module(package)
    with open(module.__file__, encoding='utf-8') as f:
        source = f.read()
    start = source.index(_lazy._BEGIN) + len(_lazy._BEGIN)
    block = source[start:source.find('\n\n', start)].strip('\n')
    assert block == '\n'.join(_lazy.type_checking_imports(package, module._EXPORTS)), (
        'run: python -m chainlite._lazy')


def test_mypy_reports_nothing_on_chainlite(tmp_path):
    code, out = _mypy('--config-file', os.path.join(ROOT, 'pyproject.toml'),
                      os.path.join(ROOT, 'chainlite'), cwd=ROOT, cache=tmp_path)
    assert code == 0, out


# Three mistakes, on lines 9, 10 and 12 (docs/typing.md shows the same script).
PLANTED = textwrap.dedent('''\
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
    ''')

# Idiomatic code that runs, and that mypy must pass without a word: a Chain subclass whose
# children are set in init_scope, a child of a child reached through a link typed as Link
# (Classifier.predictor), Variable arithmetic, a post-accumulate-grad hook reading p.grad,
# an optimizer set up on the model.
IDIOMATIC = textwrap.dedent('''\
    import numpy as np
    import chainlite as chainer
    import chainlite.functions as F
    import chainlite.links as L


    class CNN(chainer.Chain):
        def __init__(self, n_out: int) -> None:
            super().__init__()
            with self.init_scope():
                self.conv1 = L.Convolution2D(None, 4, ksize=3)
                self.bn1 = L.BatchNormalization(4)
                self.fc = L.Linear(None, n_out)

        def forward(self, x: chainer.Variable) -> chainer.Variable:
            h = F.relu(self.bn1(self.conv1(x)))
            return self.fc(F.max_pooling_2d(h, 2))


    model = L.Classifier(CNN(10))
    x = chainer.Variable(np.ones((2, 1, 8, 8), np.float32))
    h = model.predictor.bn1(model.predictor.conv1(x))
    y = (F.relu(h) * 2 + 1) ** 2 - x.array.mean()
    z: chainer.Variable = -abs(y) @ np.ones((6, 3), np.float32) / 3.0

    norms: list[float] = []
    for p in model.params():
        p.register_post_accumulate_grad_hook(
            lambda q: norms.append(float(np.linalg.norm(q.grad))))

    optimizer = chainer.optimizers.Adam(alpha=1e-3)
    optimizer.setup(model)
    model.cleargrads()
    loss = model(x, np.zeros(2, np.int32))
    loss.backward()
    optimizer.update()
    W = model.predictor.fc.W
    assert W.grad is not None and len(norms) == 6
    print(z.shape, W.shape, float(loss.array) > 0)
    ''')


def _check_user_scripts(folder, run_mypy):
    """Writes the two scripts into ``folder`` and checks what ``run_mypy(*files)`` says."""
    (folder / 'train.py').write_text(PLANTED)
    (folder / 'idiomatic.py').write_text(IDIOMATIC)
    code, out = run_mypy('--no-incremental', 'train.py', 'idiomatic.py')
    assert code == 1, out
    errors = {(m[1], int(m[2]))
              for m in re.finditer(r'^(\S+?):(\d+): error', out, re.MULTILINE)}
    assert errors == {('train.py', 9), ('train.py', 10), ('train.py', 12)}, out
    assert 'Found 3 errors in 1 file (checked 2 source files)' in out, out
    assert 'Incompatible types in assignment (expression has type "Variable", variable has ' \
           'type "int")' in out, out
    assert 'Argument "alpha" to "Adam" has incompatible type "str"; expected "float"' in out
    assert 'Unexpected keyword argument "labels" for "softmax_cross_entropy"' in out


def test_mypy_checks_user_scripts_against_chainlite_on_the_path(tmp_path):
    # The checkout as a plain sys.path entry: what the .pth file of `pip install -e .` adds.
    # mypy reads it as an installed package (py.typed, errors inside it not reported).
    env = _env(PYTHONPATH=ROOT)
    _check_user_scripts(tmp_path,
                        lambda *args: _mypy(*args, cwd=tmp_path, cache=tmp_path, env=env))
    # The idiomatic script is code that runs.
    proc = subprocess.run([sys.executable, 'idiomatic.py'], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == '(2, 4, 6, 3) (10, 36) True\n'


def _run(*command, cwd):
    proc = subprocess.run([str(c) for c in command], cwd=cwd, env=_env(),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


@pytest.mark.slow
def test_mypy_finds_chainlite_installed_from_a_wheel_and_editable(tmp_path):
    # A fresh virtual environment, as a user's: first a regular install of the wheel, then
    # the README's `pip install -e .` from the checkout; mypy checks the user scripts
    # against each (a minute or more, most of it pip).
    venv = tmp_path / 'venv'
    _run(sys.executable, '-m', 'venv', venv, cwd=tmp_path)
    python = venv / ('Scripts' if os.name == 'nt' else 'bin') / 'python'

    def run_mypy(*args):
        return _mypy('--python-executable', str(python), *args, cwd=tmp_path, cache=tmp_path)

    _run(python, '-m', 'pip', 'wheel', '--no-deps', '-w', tmp_path / 'dist', ROOT, cwd=ROOT)
    wheel, = (tmp_path / 'dist').glob('chainlite_dl-*.whl')
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
    # The package alone, with its data and the py.typed marker.
    assert {n.split('/')[0] for n in names} == {
        'chainlite', wheel.name.split('-py3')[0] + '.dist-info'}, names
    assert {'chainlite/__init__.py', 'chainlite/py.typed',
            'chainlite/datasets/data/digits.csv.gz'} <= set(names)
    assert not [n for n in names if '__pycache__' in n]

    _run(python, '-m', 'pip', 'install', wheel, cwd=tmp_path)
    out = _run(python, '-c', 'import chainlite, chainlite.datasets as d; '
               'print(chainlite.__file__, *map(len, d.get_digits()))', cwd=tmp_path)
    assert out.startswith(str(venv)) and out.split()[1:] == ['1438', '359'], out
    _check_user_scripts(tmp_path, run_mypy)

    _run(python, '-m', 'pip', 'install', '-e', '.', cwd=ROOT)    # the README's command
    out = _run(python, '-c', 'import chainlite; print(chainlite.__file__)', cwd=tmp_path)
    assert out.strip() == os.path.join(ROOT, 'chainlite', '__init__.py')
    _check_user_scripts(tmp_path, run_mypy)


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
