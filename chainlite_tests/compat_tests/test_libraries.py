"""Libraries built on Chainer, used for real under ``python -m chainlite.compat``.

ChainerRL trains a DQN agent on a tiny environment made here, and ChainerCV's SSD300 (no
pretrained weights: nothing is downloaded) predicts boxes for an image. The libraries are not
dependencies of chainlite: these tests run where they are importable and are skipped, saying
how to get them, elsewhere (docs/libraries.md; ``../shared/ecosystem/run.sh`` installs both
into its venv, whose Python runs these tests). Marked slow: each starts a process that
trains or runs a VGG-sized network.
"""
import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy
import pytest

pytestmark = pytest.mark.slow

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _needs(module):
    if importlib.util.find_spec(module) is None:
        pytest.skip('%s is not installed: docs/libraries.md says how to install it' % module)


def _compat(code):
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(filter(None, [ROOT, env.get('PYTHONPATH')]))
    return subprocess.run(
        [sys.executable, '-m', 'chainlite.compat', '--numpy-legacy', '-c', textwrap.dedent(code)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def test_chainerrl_dqn_learns_a_contextual_bandit():
    _needs('chainerrl')
    if tuple(int(p) for p in numpy.__version__.split('.')[:2]) >= (2, 4):
        pytest.skip("ChainerRL's DQN calls float() on one-element arrays (dqn.py), an error "
                    'from NumPy 2.4 on that no legacy mode can undo: run with numpy<2.4')
    proc = _compat('''
        import numpy as np
        import chainer, chainerrl

        # Two states (one-hot), two actions; the reward is 1 for the action that matches
        # the state. One step per episode.
        rng = np.random.RandomState(0)
        np.random.seed(0)       # the explorer draws from NumPy's global state
        q_func = chainerrl.q_functions.FCStateQFunctionWithDiscreteAction(
            2, 2, n_hidden_channels=16, n_hidden_layers=1)
        optimizer = chainer.optimizers.Adam(1e-2)
        optimizer.setup(q_func)
        explorer = chainerrl.explorers.ConstantEpsilonGreedy(
            0.3, lambda: rng.randint(2))
        agent = chainerrl.agents.DQN(
            q_func, optimizer, chainerrl.replay_buffer.ReplayBuffer(1000), gamma=0.0,
            explorer=explorer, replay_start_size=32, minibatch_size=16, update_interval=1,
            target_update_interval=10)
        for step in range(400):
            state = rng.randint(2)
            obs = np.eye(2, dtype=np.float32)[state]
            action = agent.act_and_train(obs, 0.0)
            agent.stop_episode_and_train(obs, float(action == state), done=True)
        greedy = [int(agent.act(np.eye(2, dtype=np.float32)[s])) for s in (0, 1)]
        agent.stop_episode()
        print('greedy', greedy, 'updates', optimizer.t)
    ''')
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split()[:3] == ['greedy', '[0,', '1]'], proc.stdout
    assert int(proc.stdout.split()[-1]) > 300  # it trained


def test_chainercv_ssd300_predicts_boxes_without_pretrained_weights():
    _needs('chainercv')
    proc = _compat('''
        import numpy as np
        from chainercv.links import SSD300

        model = SSD300(n_fg_class=3, pretrained_model=None)
        model.use_preset('visualize')
        image = np.random.RandomState(0).randint(0, 255, (3, 240, 320)).astype(np.float32)
        bboxes, labels, scores = model.predict([image])
        (b,), (l,), (s,) = bboxes, labels, scores
        assert b.shape == (len(l), 4) and s.shape == (len(l),), (b.shape, l.shape, s.shape)
        assert b.dtype == np.float32 and ((l >= 0) & (l < 3)).all()
        assert ((s >= 0) & (s <= 1)).all() and np.isfinite(b).all()
        assert (b[:, 2:] >= b[:, :2]).all()          # (y_min, x_min, y_max, x_max)
        # The 'visualize' preset keeps boxes scoring over 0.6, at most 200 per class after
        # non-maximum suppression.
        assert (s > 0.6).all() and len(l) <= 600
        print('boxes', len(l))
    ''')
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith('boxes ')
