"""chainlite's BLAS thread policy (chainlite/_blas.py): its decisions, not its timings.

What happens at start-up runs in fresh interpreters; the decisions inside a process run
here against a fake BLAS library, so that no test depends on the machine's cores or load.
"""
import json
import os
import subprocess
import sys
import types

import numpy as np
import pytest

import chainlite
import chainlite.functions as F
from chainlite import _blas

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# In a fresh interpreter: the BLAS thread counts before and after a small product, and
# whether the hot path calls numpy.matmul without looking at the product's size.
_REPORT = '''
import json, numpy as np, threadpoolctl
import chainlite, chainlite.functions as F
from chainlite import _blas
before = [i['num_threads'] for i in threadpoolctl.threadpool_info() if i['user_api'] == 'blas']
%s
F.linear(np.ones((2, 3), np.float32), np.ones((4, 3), np.float32))
print(json.dumps([before, _blas.threads(), _blas.matmul is _blas._plain_matmul]))
'''


def _python(*args, **env_vars):
    env = {k: v for k, v in os.environ.items() if k not in _blas.ENV_VARS}
    env.update(env_vars, PYTHONPATH=os.pathsep.join(filter(None, [ROOT, env.get('PYTHONPATH')])))
    proc = subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _report(setup='', **env_vars):
    return json.loads(_python('-c', _REPORT % setup, **env_vars))


class _FakeBLAS:
    """A threadpoolctl controller stand-in that records the counts it is set to."""

    user_api = 'blas'

    def __init__(self, threads=2):
        self.threads = threads
        self.calls = []

    def get_num_threads(self):
        return self.threads

    def set_num_threads(self, n):
        self.calls.append(n)
        self.threads = n


@pytest.fixture
def fresh(monkeypatch):
    """_blas with its state reset, the thread variables unset, and a fake BLAS library."""
    for name in ('_configured', '_libs', '_initial', '_setting', '_big', '_big_macs', '_sample',
                 'matmul'):
        monkeypatch.setattr(_blas, name, getattr(_blas, name))
    for name in _blas.ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    fake = _FakeBLAS()

    class Controller:
        lib_controllers = [fake]

    import threadpoolctl
    monkeypatch.setattr(threadpoolctl, 'ThreadpoolController', Controller)
    monkeypatch.setattr(_blas, '_configured', False)
    monkeypatch.setattr(_blas, '_setting', None)
    monkeypatch.setattr(_blas, '_sample', None)
    monkeypatch.setattr(_blas, 'matmul', _blas._first_matmul)
    monkeypatch.setattr(_blas, '_usable_cores', lambda: 2)
    monkeypatch.setattr(_blas, '_cores', lambda: (2, 2))      # (free, usable)
    monkeypatch.setattr(_blas, 'FLOPS_PER_THREAD', 1)        # tests set the thresholds
    yield fake
    monkeypatch.undo()
    with _blas._lock:
        _blas._configure()      # the real libraries back to the process's setting


def test_import_alone_leaves_the_blas_alone():
    out = _python('-c', 'import sys, chainlite; print("threadpoolctl" in sys.modules, '
                  'chainlite._blas._configured)')
    assert out.split() == ['False', 'False']


def test_default_is_one_thread_from_the_first_product():
    before, after, plain = _report()
    assert after == [1] * len(before)
    if before and len(os.sched_getaffinity(0)) > 1:
        assert not plain    # the policy is on: the hot path checks each product's size


@pytest.mark.parametrize('name', ['OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS'])
def test_a_thread_variable_wins(name):
    before, after, plain = _report(**{name: '2'})
    assert after == before
    assert plain        # not even a comparison per product


def test_set_blas_threads_wins_over_the_default_and_the_variables():
    setup = 'chainlite.set_blas_threads(3)'
    for env in ({}, {'OPENBLAS_NUM_THREADS': '2'}):
        before, after, plain = _report(setup, **env)
        assert after == [3] * len(before) and plain
    setup = 'chainlite.set_blas_threads(3); chainlite.set_blas_threads(None)'
    before, after, _ = _report(setup, OPENBLAS_NUM_THREADS='2')
    assert after == before                  # None gives the variable back its say


def test_the_compat_runner_uses_the_same_policy():
    out = _python('-m', 'chainlite.compat', '-c',
                  'import numpy as np, chainer, chainer.functions as F\n'
                  'F.linear(np.ones((2, 3), np.float32), np.ones((4, 3), np.float32))\n'
                  'from chainlite import _blas; print(_blas.threads())')
    assert set(json.loads(out)) <= {1}


def test_loading_an_example_sets_no_thread_variable():
    out = _python('-c', 'import os, runpy; runpy.run_path("examples/train_digits.py", '
                  'run_name="loaded"); print(sorted(set(%r) & os.environ.keys()))'
                  % (_blas.ENV_VARS,))
    assert out.strip() == '[]'


def test_small_products_stay_on_one_thread(fresh):
    y = F.linear(np.ones((3, 4), np.float32), np.ones((5, 4), np.float32))
    assert y.shape == (3, 5)
    assert fresh.calls == [1]           # set once, at the first product
    F.matmul(np.ones((8, 8)), np.ones((8, 8)))
    assert fresh.calls == [1]


def test_a_large_product_runs_on_the_free_cores_then_one_thread(fresh, monkeypatch):
    F.matmul(np.ones((2, 2)), np.ones((2, 2)))
    monkeypatch.setattr(_blas, '_big_macs', 16 ** 3)
    seen = []
    real = np.matmul

    def spy(a, b):
        seen.append(fresh.threads)
        return real(a, b)

    monkeypatch.setattr(np, 'matmul', spy)
    a = chainlite.Variable(np.ones((16, 16), np.float32))
    y = F.matmul(a, np.ones((16, 16), np.float32))
    y.grad = np.ones_like(y.array)
    y.backward()
    assert seen == [2, 2]                        # the product and its gradient
    assert fresh.calls == [1, 2, 1, 2, 1] and fresh.threads == 1
    F.matmul(np.ones((15, 16)), np.ones((16, 16)))   # just under the threshold
    assert seen[-1] == 1 and fresh.calls[-1] == 1 and len(fresh.calls) == 5


def test_convolutions_and_tensordot_follow_the_policy(fresh, monkeypatch):
    F.matmul(np.ones((2, 2)), np.ones((2, 2)))
    monkeypatch.setattr(_blas, '_big', 1)
    monkeypatch.setattr(_blas, '_big_macs', 1)
    x = np.ones((1, 2, 5, 5), np.float32)
    F.convolution_2d(x, np.ones((3, 2, 3, 3), np.float32))
    F.deconvolution_2d(x, np.ones((2, 3, 3, 3), np.float32))
    F.tensordot(np.ones((3, 4)), np.ones((4, 5)), axes=1)
    assert fresh.calls == [1] + [2, 1] * 3


def test_each_thread_gets_at_least_flops_per_thread(fresh, monkeypatch):
    F.matmul(np.ones((2, 2)), np.ones((2, 2)))
    monkeypatch.setattr(_blas, '_big', 1)
    monkeypatch.setattr(_blas, '_big_macs', 1)
    monkeypatch.setattr(_blas, '_cores', lambda: (8, 8))      # eight idle cores
    flops = 2 * 32 * 64 * 64
    monkeypatch.setattr(_blas, 'FLOPS_PER_THREAD', flops / 3)
    F.matmul(np.ones((32, 64)), np.ones((64, 64)))
    assert fresh.calls == [1, 3, 1]          # three threads' worth, not all eight cores
    F.matmul(np.ones((128, 64)), np.ones((64, 64)))
    assert fresh.calls[-2:] == [8, 1]        # twelve threads' worth, capped by the cores
    monkeypatch.setattr(_blas, 'FLOPS_PER_THREAD', flops / 1.5)
    F.matmul(np.ones((32, 64)), np.ones((64, 64)))
    assert len(fresh.calls) == 5             # one thread's worth: the count is not touched


def test_the_default_thresholds():
    # Two threads from 4e6 flops (the digits CNN's second convolution, 4.7e6, gets them on
    # two idle cores; the digits MLP's products, 1e6 at most, stay on one); every core from
    # 1e10 even when they are busy.
    assert _blas.BIG_PRODUCT_FLOPS == 2 * _blas.FLOPS_PER_THREAD == 4e6
    assert _blas.HUGE_PRODUCT_FLOPS == 1e10


def test_busy_cores_keep_one_thread_but_for_huge_products(fresh, monkeypatch):
    F.matmul(np.ones((2, 2)), np.ones((2, 2)))
    monkeypatch.setattr(_blas, '_big', 1)
    monkeypatch.setattr(_blas, '_big_macs', 1)
    monkeypatch.setattr(_blas, '_cores', lambda: (1, 2))      # other processes use a core
    F.matmul(np.ones((64, 64)), np.ones((64, 64)))
    assert fresh.calls == [1]
    monkeypatch.setattr(_blas, 'HUGE_PRODUCT_FLOPS', 2 * 64 ** 3)
    F.matmul(np.ones((64, 64)), np.ones((64, 64)))
    assert fresh.calls == [1, 2, 1]


def test_one_usable_core_turns_the_check_off(fresh, monkeypatch):
    monkeypatch.setattr(_blas, '_usable_cores', lambda: 1)
    F.matmul(np.ones((2, 2)), np.ones((2, 2)))
    assert fresh.calls == [1] and _blas.matmul is _blas._plain_matmul


def test_a_count_set_behind_chainlites_back_is_left_alone(fresh, monkeypatch):
    F.matmul(np.ones((2, 2)), np.ones((2, 2)))
    monkeypatch.setattr(_blas, '_big', 1)
    monkeypatch.setattr(_blas, '_big_macs', 1)
    fresh.threads = 4                   # threadpoolctl.threadpool_limits(4), say
    F.matmul(np.ones((64, 64)), np.ones((64, 64)))
    assert fresh.calls == [1] and fresh.threads == 4


def test_set_blas_threads(fresh):
    chainlite.set_blas_threads(2)
    assert chainlite.get_blas_threads() == 2 and fresh.threads == 2
    assert _blas.matmul is _blas._plain_matmul
    chainlite.set_blas_threads(None)
    assert chainlite.get_blas_threads() is None and fresh.threads == 1
    assert _blas.matmul is _blas._matmul
    for bad in (0, -1, 1.5, True, '2'):
        with pytest.raises(ValueError, match='positive int'):
            chainlite.set_blas_threads(bad)


def test_variables_set_leave_the_count_alone(fresh, monkeypatch):
    monkeypatch.setenv('OMP_NUM_THREADS', '2')
    F.matmul(np.ones((2, 2)), np.ones((2, 2)))
    assert fresh.calls == [2] and _blas.matmul is _blas._plain_matmul   # its own count, set back


@pytest.mark.parametrize('libs', ['none found', 'no threadpoolctl'])
def test_works_without_a_blas_to_control(fresh, monkeypatch, libs):
    import threadpoolctl

    class Empty:
        lib_controllers = []

    if libs == 'none found':
        monkeypatch.setattr(threadpoolctl, 'ThreadpoolController', Empty)
    else:
        monkeypatch.setitem(sys.modules, 'threadpoolctl', None)    # import fails
    y = F.linear(np.ones((3, 4), np.float32), np.ones((5, 4), np.float32))
    np.testing.assert_array_equal(y.array, np.full((3, 5), 4, np.float32))
    assert _blas.threads() == [] and _blas.matmul is _blas._plain_matmul
    chainlite.set_blas_threads(2)
    chainlite.set_blas_threads(None)
    assert fresh.calls == []


def test_free_cores_are_those_other_processes_leave(monkeypatch):
    monkeypatch.setattr(_blas, '_sample', None)
    monkeypatch.setattr(_blas.os, 'sched_getaffinity', lambda pid: {0, 1}, raising=False)
    clock = [100.0]
    others = [50.0]
    monkeypatch.setattr(_blas, 'time', types.SimpleNamespace(monotonic=lambda: clock[0]))
    monkeypatch.setattr(_blas, '_others_cpu_seconds', lambda cores: others[0])
    monkeypatch.setattr(_blas, '_running_others', lambda: 0)
    assert _blas._cores() == (2, 2)                 # the first sample: nothing else runnable
    for used, expected in ((0.0, 2), (0.2, 2), (0.5, 1), (1.0, 1), (2.0, 1)):
        clock[0] += 1.0
        others[0] += used       # CPU seconds of other processes in the last second
        assert _blas._cores() == (expected, 2), used
        clock[0] += 0.1
        assert _blas._cores() == (expected, 2)      # sampled at most every 0.25 s


def test_others_cpu_seconds_reads_proc_stat():
    if not os.path.exists('/proc/stat'):
        pytest.skip('no /proc/stat here')
    cores = os.sched_getaffinity(0)
    first = _blas._others_cpu_seconds(cores)
    assert isinstance(first, float)
    assert _blas._others_cpu_seconds(None) >= first - 0.05
