"""Whole programs under mpiexec: ChainerMN-style training through chainlite.compat, Chainer's
own ChainerMN MNIST example (when a Chainer source mirror is at hand), and a rank dying of an
exception."""
import json
import os
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, 'scripts')
MIRROR = os.environ.get('CHAINER_MIRROR', '/work/.mirror/chainer+chainer/repo')


def test_an_exception_on_one_rank_aborts_the_job(mpirun):
    proc = mpirun(2, os.path.join(SCRIPTS, 'raise_on_rank_1.py'), timeout=120)
    assert proc.returncode != 0
    assert 'ValueError: boom on rank 1' in proc.stderr       # that rank's traceback
    assert 'Uncaught exception on rank 1' in proc.stderr
    assert 'raise_on_rank_1.py' in proc.stderr


def test_chainermn_script_trains_under_compat(mpirun, tmp_path):
    out = tmp_path / 'result'
    proc = mpirun(2, '-m', 'chainlite.compat', os.path.join(SCRIPTS, 'train_mnist_chainermn.py'),
                  '--epoch', '3', '--out', str(out), timeout=240)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert 'rank 0 of 2 done' in proc.stdout and 'rank 1 of 2 done' in proc.stdout
    assert proc.stdout.count('validation/main/accuracy') == 1    # only rank 0 reports
    with open(out / 'log') as f:
        log = json.load(f)
    assert [e['epoch'] for e in log] == [1, 2, 3]
    assert log[-1]['main/loss'] < log[0]['main/loss']
    assert log[-1]['validation/main/accuracy'] > 0.6             # chance is 0.1
    # Each replica set's master wrote its snapshots: rank 0, and rank 1 for the rest.
    names = set(os.listdir(out))
    assert {'snapshot_iter_%d.%d' % (it, r) for r in (0, 1) for it in (23,)} <= names, names


def _chainer_example(tmp_path):
    try:
        source = subprocess.run(
            ['git', '-C', MIRROR, 'show', 'v7.8.1:examples/chainermn/mnist/train_mnist.py'],
            capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        source = None
    if source is None or source.returncode != 0:
        pytest.skip('no Chainer source mirror (set CHAINER_MIRROR to a git copy of '
                    'chainer/chainer)')
    script = tmp_path / 'train_mnist.py'
    script.write_text(source.stdout)
    return script


def test_chainers_own_chainermn_mnist_example(mpirun, tmp_path):
    # Chainer's example, untouched; offline, its get_mnist is the bundled digits (a
    # sitecustomize module swaps it before the script runs).
    script = _chainer_example(tmp_path)
    stub = tmp_path / 'stub'
    stub.mkdir()
    (stub / 'sitecustomize.py').write_text(
        'import chainlite.datasets as d\nd.get_mnist = d.get_digits\n')
    out = tmp_path / 'result'
    proc = mpirun(2, '-m', 'chainlite.compat', str(script), '--communicator', 'naive',
                  '--epoch', '3', '--unit', '100', '--out', str(out), timeout=300,
                  env={'PYTHONPATH': os.pathsep.join(
                      [str(stub), os.path.dirname(os.path.dirname(HERE))])})
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert 'Num process (COMM_WORLD): 2' in proc.stdout
    with open(out / 'log') as f:
        log = json.load(f)
    assert len(log) == 3
    assert log[-1]['main/loss'] < log[0]['main/loss']
    assert log[-1]['validation/main/accuracy'] > 0.5


def _mpi_blocks(page):
    # The ```python {.no-run .mpi} blocks of a docs page (markers as in test_docs.py).
    blocks, body, inside = [], [], False
    for line in page.read_text(encoding='utf-8').splitlines():
        markers = line.partition('{')[2].rstrip().rstrip('}').split()
        if not inside and line.startswith('```python') and '.mpi' in markers:
            inside, body = True, []
        elif inside and line.strip() == '```':
            inside = False
            blocks.append('\n'.join(body) + '\n')
        elif inside:
            body.append(line)
    return blocks


def test_docs_scripts_run_under_mpiexec(mpirun, tmp_path):
    page = os.path.join(os.path.dirname(os.path.dirname(HERE)), 'docs', 'distributed.md')
    blocks = _mpi_blocks(__import__('pathlib').Path(page))
    assert len(blocks) == 3
    names = []
    for i, block in enumerate(blocks):
        (tmp_path / ('block%d.py' % i)).write_text(block)
        names.append(str(tmp_path / ('block%d.py' % i)))
    # One job runs the scripts, one after the other.
    driver = tmp_path / 'driver.py'
    driver.write_text('import runpy, sys\nfor name in sys.argv[1:]:\n'
                      '    runpy.run_path(name, run_name="__main__")\nprint("docs ok")\n')
    proc = mpirun(2, str(driver), *names, cwd=str(tmp_path), timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert proc.stdout.count('docs ok') == 2
