"""A Chainer-style script using ``@static_graph`` runs unchanged under ``python -m
chainlite.compat``, trains, and ends with the parameters define-by-run gives."""
import json
import os
import re
import subprocess
import sys

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
