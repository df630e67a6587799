"""The MLP scripts in ``scripts/`` (Trainer, custom loop) run unchanged under
``python -m chainlite.compat`` and train.

Each script is written against Chainer's API only (``get_digits`` stands in for the MNIST
download; the scripts' headers say so) and runs in a fresh interpreter, with short settings.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'scripts')


def _compat(*args, cwd=ROOT):
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(filter(None, [ROOT, env.get('PYTHONPATH')]))
    return subprocess.run([sys.executable, '-m', 'chainlite.compat', *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def _script(name, *args, cwd=ROOT):
    proc = _compat(os.path.join(SCRIPTS, name), *args, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_mlp_with_the_trainer(tmp_path):
    out = _script('train_mlp_trainer.py', '--epoch', '3', '--out', str(tmp_path))
    assert 'validation/main/accuracy' in out                   # the PrintReport header
    with open(os.path.join(str(tmp_path), 'log')) as f:
        log = json.load(f)
    assert [entry['epoch'] for entry in log] == [1, 2, 3]
    assert log[-1]['main/loss'] < log[0]['main/loss']
    assert log[-1]['validation/main/accuracy'] > 0.5            # chance is 0.1


def test_mlp_with_a_custom_loop(tmp_path):
    out = _script('train_mlp_custom_loop.py', '--epoch', '3', '--out',
                  str(tmp_path / 'model.npz'))
    losses = [float(v) for v in re.findall(r'val_loss:([0-9.]+)', out)]
    accuracies = [float(v) for v in re.findall(r'val_accuracy:([0-9.]+)', out)]
    assert len(losses) == 3 and losses[-1] < losses[0]
    assert accuracies[-1] > 0.5
    assert 'reloaded model agrees: True' in out
