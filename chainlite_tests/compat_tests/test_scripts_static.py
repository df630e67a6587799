"""A Chainer-style script using ``@static_graph`` runs unchanged under ``python -m
chainlite.compat``, trains, and ends with the parameters define-by-run gives."""
import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'scripts')


def test_static_graph_mlp_with_the_trainer(tmp_path):
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(filter(None, [ROOT, env.get('PYTHONPATH')]))
    script = os.path.join(SCRIPTS, 'train_mlp_static.py')
    proc = subprocess.run([sys.executable, '-m', 'chainlite.compat', script, '--epoch', '2',
                           '--out', str(tmp_path / 'result')], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert 'static and define-by-run agree: True' in proc.stdout
    calls = int(re.search(r'side effects run: (\d+)', proc.stdout).group(1))
    assert calls > 20  # every training and evaluation call, not only the recorded ones
    with open(str(tmp_path / 'result' / 'log')) as f:
        log = json.load(f)
    assert [entry['epoch'] for entry in log] == [1, 2]
    assert log[-1]['main/loss'] < log[0]['main/loss']


MIRROR = os.environ.get('CHAINER_MIRROR', '/work/.mirror/chainer+chainer/repo')
# Offline, the example's get_mnist is the bundled digits; without matplotlib, its
# ``import matplotlib; matplotlib.use('Agg')`` finds a stand-in and PlotReport draws nothing.
SITECUSTOMIZE = '''import importlib.util
import sys

import pytest
import types

import chainlite.datasets as d

d.get_mnist = d.get_digits
if importlib.util.find_spec('matplotlib') is None:
    from chainlite.training.extensions import plot_report
    m = types.ModuleType('matplotlib')
    m.use = lambda *args, **kwargs: None
    sys.modules['matplotlib'] = m
    plot_report._matplotlib_available = lambda: False
'''


def _chainers_example(tmp_path):
    # Chainer's static_graph MNIST example, read from the source mirror (skips without one).
    try:
        source = subprocess.run(
            ['git', '-C', MIRROR, 'show',
             'v7.8.1:examples/static_graph_optimizations/mnist/train_mnist.py'],
            capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        source = None
    if source is None or source.returncode != 0:
        pytest.skip('no Chainer source mirror (set CHAINER_MIRROR to a git copy of '
                    'chainer/chainer)')
    script = tmp_path / 'train_mnist.py'
    script.write_text(source.stdout)
    return script


def _run_under_compat(tmp_path, name, script, args, sitecustomize=SITECUSTOMIZE):
    # Runs script through python -m chainlite.compat with sitecustomize loaded first; returns
    # the Trainer's log (the result folder's 'log').
    stub = tmp_path / ('stub' + name)
    stub.mkdir()
    (stub / 'sitecustomize.py').write_text(sitecustomize)
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(filter(None, [str(stub), ROOT, env.get('PYTHONPATH')]))
    out = tmp_path / ('result' + name)
    proc = subprocess.run([sys.executable, '-m', 'chainlite.compat', str(script), *args,
                           '--out', str(out)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    with open(str(out / 'log')) as f:
        return out, json.load(f)


@pytest.mark.parametrize('model', ['MLP', 'MLPSideEffect'])
def test_chainers_own_static_graph_mnist_example(tmp_path, model):
    script = _chainers_example(tmp_path)
    out, log = _run_under_compat(tmp_path, '', script,
                                 ['--epoch', '3', '--unit', '50', '--model', model])
    assert [entry['epoch'] for entry in log] == [1, 2, 3]
    assert log[-1]['main/loss'] < log[0]['main/loss']
    assert log[-1]['validation/main/accuracy'] > 0.5             # chance is 0.1
    assert any(name.startswith('snapshot_iter_') for name in os.listdir(str(out)))
    assert (out / 'cg.dot').exists()                             # DumpGraph


def test_chainers_static_graph_example_trains_as_define_by_run(tmp_path):
    # The same seeded run twice, the second with use_static_graph off: the logs (losses and
    # validation accuracies of every epoch) agree exactly.
    script = _chainers_example(tmp_path)
    logs = []
    for static in (True, False):
        _, log = _run_under_compat(
            tmp_path, '_%s' % static, script, ['--epoch', '2', '--unit', '50', '--model', 'MLP'],
            SITECUSTOMIZE + '\nimport numpy\nnumpy.random.seed(0)\nimport chainlite\n'
            'chainlite.config.use_static_graph = %s\n' % static)
        logs.append([(e['main/loss'], e['validation/main/accuracy']) for e in log])
    assert len(logs[0]) == 2 and logs[0] == logs[1]
    assert logs[0][-1][1] > 0.5
