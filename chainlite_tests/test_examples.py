"""The scripts in ``examples/`` run end to end, offline, in a fresh interpreter."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run_example(name, *args):
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(filter(None, [ROOT, env.get('PYTHONPATH')]))
    return subprocess.run([sys.executable, os.path.join('examples', name), *args], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)


def test_fit_curve_lowers_the_loss():
    proc = _run_example('fit_curve.py', '--steps', '300')
    assert proc.returncode == 0, proc.stderr
    # The loss table: lines of "<step> <loss>".
    losses = [float(m.group(2)) for m in
              re.finditer(r'^\s*(\d+)\s+([-+0-9.eE]+|nan|inf)\s*$', proc.stdout, re.MULTILINE)]
    assert len(losses) >= 2, proc.stdout
    assert losses[-1] < losses[0], proc.stdout


def test_train_digits_runs_one_epoch_and_resumes(tmp_path):
    out = str(tmp_path / 'result')
    proc = _run_example('train_digits.py', '--epoch', '1', '--out', out)
    assert proc.returncode == 0, proc.stderr
    assert 'validation/main/accuracy' in proc.stdout          # the PrintReport header
    accuracy = float(re.search(r'final validation accuracy: ([0-9.]+)', proc.stdout).group(1))
    assert accuracy > 0.5                                      # one epoch is far above chance
    assert os.path.exists(os.path.join(out, 'log'))
    snapshot = os.path.join(out, 'snapshot_epoch_1')
    assert os.path.exists(snapshot)
    # Resuming from the snapshot continues at epoch 1 and trains one more epoch.
    proc = _run_example('train_digits.py', '--epoch', '2', '--out', out, '--resume', snapshot,
                        '--no-progress')
    assert proc.returncode == 0, proc.stderr
    assert re.search(r'^2\s', proc.stdout, re.MULTILINE), proc.stdout


def test_train_digits_reaches_97_percent(tmp_path):
    # The README's main job, in full (about a second of training).
    proc = _run_example('train_digits.py', '--out', str(tmp_path), '--no-progress')
    assert proc.returncode == 0, proc.stderr
    accuracy = float(re.search(r'final validation accuracy: ([0-9.]+)', proc.stdout).group(1))
    assert accuracy >= 0.97, proc.stdout
