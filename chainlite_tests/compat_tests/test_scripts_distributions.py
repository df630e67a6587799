"""The VAE script in ``scripts/`` (chainer.distributions, kl_divergence, reparameterized
sampling, Trainer) runs unchanged under ``python -m chainlite.compat`` and learns.

Written against Chainer's API only, after the pattern of Chainer's examples/vae (the
script's header says what it substitutes); runs in a fresh interpreter.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'scripts')


def test_vae_with_distributions(tmp_path):
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(filter(None, [ROOT, env.get('PYTHONPATH')]))
    proc = subprocess.run([sys.executable, '-m', 'chainlite.compat',
                           os.path.join(SCRIPTS, 'train_vae.py'), '--epoch', '3',
                           '--out', str(tmp_path)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    with open(os.path.join(str(tmp_path), 'log')) as f:
        log = json.load(f)
    assert len(log) == 3
    # The negative ELBO falls; both of its terms are reported and finite.
    assert log[-1]['main/loss'] < 0.85 * log[0]['main/loss']
    assert log[-1]['validation/main/loss'] < log[0]['validation/main/loss']
    assert all(0 < e['main/kl_penalty'] < 50 for e in log)
    error = float(re.search(r'reconstruction error ([0-9.]+)', proc.stdout).group(1))
    assert error < 0.1
    assert 'sampled shape (9, 64)' in proc.stdout
    assert [f for f in os.listdir(str(tmp_path)) if f.startswith('snapshot_iter_')]
