"""The CNN, LSTM and FunctionNode scripts in ``scripts/`` run unchanged under
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


def test_cnn_on_digit_images(tmp_path):
    _script('train_cnn.py', '--epoch', '2', '--out', str(tmp_path))
    with open(os.path.join(str(tmp_path), 'log')) as f:
        log = json.load(f)
    assert log[-1]['main/loss'] < log[0]['main/loss']
    assert log[-1]['validation/main/accuracy'] > 0.5


def test_character_lstm_language_model():
    out = _script('train_char_lstm.py', '--epoch', '3')
    perplexities = [float(v) for v in re.findall(r'perplexity ([0-9.]+)', out)]
    assert len(perplexities) == 3
    assert perplexities[-1] < perplexities[0] / 2               # 18 -> 4 in practice
    assert 'sample:' in out


def test_custom_function_node_passes_checks_and_trains():
    out = _script('custom_function_node.py', '--steps', '150')
    assert 'gradient checks passed' in out
    losses = [float(v) for v in re.findall(r'loss ([0-9.]+)', out)]
    assert losses[-1] < losses[0] / 100
