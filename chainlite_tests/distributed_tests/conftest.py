"""Starting MPI jobs from the tests: ``mpiexec -n N`` with a timeout, so a deadlock fails."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'scripts')


def _have_mpi():
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return shutil.which('mpiexec') is not None


def mpiexec(n, *args, timeout=180, cwd=ROOT, env=None):
    """Runs ``mpiexec -n n python ARGS...`` and returns the CompletedProcess."""
    command = ['mpiexec', '-n', str(n), '--oversubscribe']
    if hasattr(os, 'geteuid') and os.geteuid() == 0:
        command.append('--allow-run-as-root')
    full_env = dict(os.environ)
    full_env['PYTHONPATH'] = os.pathsep.join(filter(None, [ROOT, full_env.get('PYTHONPATH')]))
    # One BLAS thread per process: the ranks share the machine's cores.
    full_env.setdefault('OMP_NUM_THREADS', '1')
    full_env.setdefault('OPENBLAS_NUM_THREADS', '1')
    full_env.update(env or {})
    return subprocess.run(command + [sys.executable, *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope='session')
def mpirun():
    """``mpiexec(n, *args, timeout=..., cwd=..., env=...)``; skips without mpi4py/mpiexec."""
    if not _have_mpi():
        pytest.skip("needs mpi4py and mpiexec (pip install -e '.[mpi]')")
    return mpiexec


class Job:
    """A finished check script: which checks passed, and the output to show if one did not."""

    def __init__(self, proc):
        self.proc = proc
        self.passed = {line.split()[1] for line in proc.stdout.splitlines()
                       if line.startswith('PASS ')}

    def expect(self, name):
        assert name in self.passed, 'check %s did not pass (exit %d):\n%s\n%s' % (
            name, self.proc.returncode, self.proc.stdout[-3000:], self.proc.stderr[-6000:])


@pytest.fixture(scope='session')
def collectives_job(mpirun):
    """check_collectives.py, once with 2 and once with 3 processes (by size)."""
    jobs = {}

    def get(n):
        if n not in jobs:
            jobs[n] = Job(mpirun(n, os.path.join(SCRIPTS, 'check_collectives.py')))
        return jobs[n]
    return get


@pytest.fixture(scope='session')
def training_job(mpirun, tmp_path_factory):
    """check_training.py with 2 processes."""
    out = tmp_path_factory.mktemp('mpi_training')
    return Job(mpirun(2, os.path.join(SCRIPTS, 'check_training.py'), str(out), timeout=300))
