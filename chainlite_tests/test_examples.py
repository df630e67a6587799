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
