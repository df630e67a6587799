"""The scripts in ``examples/`` run end to end, offline, in a fresh interpreter."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run_example(name, *args, python_options=()):
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(filter(None, [ROOT, env.get('PYTHONPATH')]))
    return subprocess.run([sys.executable, *python_options, os.path.join('examples', name),
                           *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)


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
    # Under -W error, as a careful user may run it: nothing may warn (a missing matplotlib
    # is a one-line note on stderr, not a warning).
    proc = _run_example('train_digits.py', '--epoch', '1', '--out', out,
                        python_options=('-W', 'error'))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count('matplotlib is not installed') <= 1, proc.stderr
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


def _final_accuracy(stdout):
    return float(re.search(r'final validation accuracy: ([0-9.]+)', stdout).group(1))


def test_custom_function_prints_p3_and_refuses_old_style_second_derivative():
    proc = _run_example('custom_function.py')
    assert proc.returncode == 0, proc.stderr
    assert "old-style Function:  P3(1) = 1, P3'(1) = 6" in proc.stdout
    assert "FunctionNode:        P3(1) = 1, P3'(1) = 6, P3''(1) = 15" in proc.stdout
    assert 'check_double_backward: passed for the FunctionNode' in proc.stdout
    assert proc.stdout.count('check_backward:        passed') == 2
    assert 'refused: RuntimeError: cannot twice-differentiate' in proc.stdout


def test_higher_order_matches_analytic_derivatives_and_newton_converges():
    proc = _run_example('higher_order.py', '--x0', '2')
    assert proc.returncode == 0, proc.stderr
    errors = re.findall(r'^\s+(sin|tanh)\s+order (\d): ([0-9.e+-]+)$', proc.stdout, re.MULTILINE)
    assert {(name, int(k)) for name, k, _ in errors} == {
        (name, k) for name in ('sin', 'tanh') for k in range(5)}
    assert max(float(err) for _, _, err in errors) < 1e-12
    # f'(x) = exp(x) + 2x - 3, evaluated by the script with NumPy, vanishes at the minimum.
    found = re.search(r"minimum at x = ([-0-9.]+), f'\(x\) = ([-0-9.e+]+)", proc.stdout)
    assert abs(float(found.group(1)) - 0.5942049585) < 1e-9, proc.stdout
    assert abs(float(found.group(2))) < 1e-10, proc.stdout
    iterates = re.findall(r'^\s+\d+\s+[-0-9.]+\s+[-0-9.]+\s+[-0-9.e+]+$', proc.stdout,
                          re.MULTILINE)
    assert 3 <= len(iterates) <= 10, proc.stdout              # Newton: a handful of steps


def test_pinn_solves_poisson_with_default_settings():
    # The defaults train in about two seconds.
    proc = _run_example('pinn.py')
    assert proc.returncode == 0, proc.stderr
    error = float(re.search(r'max error against sin\(pi x\) on 201 points: ([0-9.e+-]+)',
                            proc.stdout).group(1))
    assert error < 0.05, proc.stdout


def test_hvp_agrees_with_the_full_hessian():
    proc = _run_example('hvp.py', '--n', '5', '--hidden', '3')
    assert proc.returncode == 0, proc.stderr
    assert float(re.search(r'max difference: ([0-9.e+-]+)', proc.stdout).group(1)) < 1e-6
    exact = re.search(r'max \|Hv - H_exact v\|\s+= ([0-9.e+-]+)', proc.stdout).group(1)
    assert float(exact) < 1e-12, proc.stdout


def test_cnn_digits_runs_two_epochs():
    proc = _run_example('cnn_digits.py', '--epoch', '2')
    assert proc.returncode == 0, proc.stderr
    assert 'shape (1, 8, 8)' in proc.stdout
    assert re.search(r'^2\s', proc.stdout, re.MULTILINE), proc.stdout
    assert _final_accuracy(proc.stdout) > 0.5                  # chance is 0.1


def _check_mnist_example_on_digits(*loop):
    # A narrower network on smaller batches than the defaults: as accurate, far quicker.
    proc = _run_example('mnist.py', '--dataset', 'digits', '--epoch', '2', '--unit', '100',
                        '--batchsize', '32', *loop)
    assert proc.returncode == 0, proc.stderr
    assert ('a hand-written loop' if loop else 'the Trainer') in proc.stdout
    assert '1438 training and 359 test examples of 64 pixels' in proc.stdout
    assert re.search(r'^2\s', proc.stdout, re.MULTILINE), proc.stdout
    assert _final_accuracy(proc.stdout) > 0.8                  # about 0.9 after two epochs


def test_mnist_example_on_digits_with_the_trainer():
    _check_mnist_example_on_digits()


def test_mnist_example_on_digits_with_a_custom_loop():
    _check_mnist_example_on_digits('--custom-loop')


def test_mnist_example_falls_back_to_digits_when_offline(tmp_path):
    # An unreachable mirror stands in for "no internet", whatever the machine has.
    code = ('import runpy, sys; from chainlite.datasets import mnist; '
            "mnist.MNIST_MIRRORS = ('http://127.0.0.1:9/',); "
            "sys.argv = ['mnist.py', '--epoch', '1', '--unit', '100', '--batchsize', '32']; "
            "runpy.run_path('examples/mnist.py', run_name='__main__')")
    env = dict(os.environ, CHAINLITE_DATASET_ROOT=str(tmp_path))
    env['PYTHONPATH'] = os.pathsep.join(filter(None, [ROOT, env.get('PYTHONPATH')]))
    proc = subprocess.run([sys.executable, '-c', code], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert 'MNIST could not be downloaded' in proc.stdout
    assert _final_accuracy(proc.stdout) > 0.5


def _number_rows(stdout, n_columns):
    """The rows of an example's per-epoch table: an epoch number and ``n_columns`` floats."""
    number = r'\s+(-?[0-9.]+(?:[eE][-+]?\d+)?|nan|inf)'
    pattern = r'^\s*(\d+)' + number * n_columns + r'\s*$'
    return [[float(v) for v in m.groups()[1:]]
            for m in re.finditer(pattern, stdout, re.MULTILINE)]


def test_rnn_lm_perplexity_falls_and_it_samples():
    proc = _run_example('rnn_lm.py', '--epoch', '3', '--unit', '32', '--sample-length', '30')
    assert proc.returncode == 0, proc.stderr
    rows = _number_rows(proc.stdout, 2)                # train and validation perplexity
    assert len(rows) == 3, proc.stdout
    n_chars = int(re.search(r'uniform guessing has perplexity (\d+)', proc.stdout).group(1))
    assert rows[0][0] < n_chars                         # better than guessing from the start
    assert rows[-1][0] < rows[0][0] and rows[-1][1] < rows[0][1], proc.stdout
    sample = proc.stdout.split('sample (temperature 0.70):\n')[1]
    assert sample.startswith('It is a ')
    assert len(sample.rstrip('\n')) >= len('It is a ') + 20   # 30 drawn, some may be newlines


def test_transformer_lm_loss_falls_and_it_samples():
    proc = _run_example('transformer_lm.py', '--quick')
    assert proc.returncode == 0, proc.stderr
    rows = _number_rows(proc.stdout, 2)                # train and validation loss
    assert len(rows) == 4, proc.stdout                 # the untrained model, then 3 epochs
    uniform = float(re.search(r'uniform guessing has loss ([0-9.]+)', proc.stdout).group(1))
    # Far from the last digits: about 4.2 -> 2.5 (train) and 4.3 -> 2.7 (validation).
    assert rows[-1][0] < 0.8 * rows[0][0] and rows[-1][0] < 0.8 * uniform, proc.stdout
    assert rows[-1][1] < 0.8 * rows[0][1], proc.stdout
    sample = proc.stdout.split('sample (temperature 0.70):\n')[1]
    assert sample.startswith('It is a ') and len(sample.rstrip('\n')) >= len('It is a ') + 20


def test_vae_elbo_rises_and_reconstructs_better_than_the_mean_image(tmp_path):
    proc = _run_example('vae.py', '--epoch', '8', '--out', str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    rows = _number_rows(proc.stdout, 4)                # train ELBO, reconstruction, KL, test
    assert len(rows) == 8, proc.stdout
    assert rows[-1][0] > rows[0][0] and rows[-1][3] > rows[0][3], proc.stdout
    assert all(kl >= 0 for _, _, kl, _ in rows)
    mse = float(re.search(r'test reconstruction error .*: ([0-9.]+)', proc.stdout).group(1))
    baseline = float(re.search(r'mean training image instead: +([0-9.]+)', proc.stdout).group(1))
    assert mse < 0.75 * baseline, proc.stdout
    assert 'install matplotlib to draw the figure' in proc.stdout or 'wrote ' in proc.stdout


def test_gan_with_gradient_penalty_moves_samples_towards_the_data(tmp_path):
    proc = _run_example('gan.py', '--epoch', '3', '--out', str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    rows = _number_rows(proc.stdout, 4)                # critic, penalty, generator, Frechet
    assert len(rows) == 3, proc.stdout
    assert all(0 <= penalty < 1 for _, penalty, _, _ in rows), proc.stdout
    untrained = float(re.search(r'untrained generator vs test images: +([0-9.]+)',
                                proc.stdout).group(1))
    final = float(re.search(r'final Frechet pixel distance: ([0-9.]+)', proc.stdout).group(1))
    assert final < 0.7 * untrained, proc.stdout
    assert 'install matplotlib to draw the figure' in proc.stdout or 'wrote ' in proc.stdout


def _blas_env_after_loading(example, **env_vars):
    """The BLAS thread variables once ``example`` is loaded (not run) in a fresh interpreter."""
    env = {k: v for k, v in os.environ.items()
           if k not in ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS')}
    env.update(env_vars, PYTHONPATH=ROOT)
    code = ('import os, runpy; runpy.run_path(%r, run_name="loaded"); '
            'print(os.environ.get("OPENBLAS_NUM_THREADS"), os.environ.get("OMP_NUM_THREADS"))'
            % os.path.join(ROOT, 'examples', example))
    proc = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split()


def test_examples_leave_blas_threads_to_the_framework():
    # The examples pin nothing: chainlite chooses the BLAS threads itself (chainlite/_blas.py,
    # tested in test_blas_threads.py), and a thread variable the user sets stays as it is.
    for example in ('train_digits.py', 'cnn_digits.py', 'mnist.py', 'rnn_lm.py', 'vae.py',
                    'gan.py', 'pinn.py'):
        assert _blas_env_after_loading(example) == ['None', 'None'], example
    assert _blas_env_after_loading('train_digits.py', OMP_NUM_THREADS='2') == ['None', '2']
    assert _blas_env_after_loading('train_digits.py', OPENBLAS_NUM_THREADS='4') == ['4', 'None']
