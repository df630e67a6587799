"""A rank that stops, for any reason, stops the whole job with a message, never a hang.

Each case is a real 2-process ``mpiexec`` job (scripts/stop_cases.py) with a timeout: a job
that hangs fails the test by timing out. The job must end, exit non-zero, and say which
rank did what.
"""
import os
import re
import subprocess

import pytest

from chainlite.distributed import _stopping

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'scripts', 'stop_cases.py')
TIMEOUT = 90     # a few seconds when it works; the machine may be busy


def _run(mpirun, case, env=None):
    try:
        return mpirun(2, SCRIPT, case, timeout=TIMEOUT, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail('%s: the job hung (still running after %d s)' % (case, TIMEOUT))


def _expect_abort(proc, *patterns):
    assert proc.returncode != 0, proc.stdout + proc.stderr
    for pattern in patterns:
        assert re.search(pattern, proc.stderr), '%r not in:\n%s' % (pattern, proc.stderr[-4000:])


def test_sys_exit_0_mid_training(mpirun):
    proc = _run(mpirun, 'sys_exit_mid_training')
    _expect_abort(proc, r'rank 1 of 2 exited \(sys\.exit\(0\) at stop_cases\.py:\d+',
                  r'after update 3 of the multi-node optimizer',
                  r'while rank 0 waits for it in update 4 of the multi-node optimizer',
                  r'aborting the job')


def test_sys_exit_nonzero_aborts_at_once(mpirun):
    proc = _run(mpirun, 'sys_exit_nonzero')
    _expect_abort(proc, r'rank 1 of 2 exited \(sys\.exit\(3\) at stop_cases\.py:\d+\)',
                  r'aborting the job')


def test_a_skipped_update_is_found_at_the_end(mpirun):
    # Rank 1 makes 9 updates, rank 0 10: rank 0's last one has no partner.
    proc = _run(mpirun, 'skip_update')
    _expect_abort(proc, r'rank 1 of 2 exited \(the end of its program, after update 9 of '
                        r'the multi-node optimizer',
                  r'rank 0 waits for it in update 10 of the multi-node optimizer')


def test_an_update_that_raised_is_found_at_the_next_exchange(mpirun):
    proc = _run(mpirun, 'raise_inside_update')
    _expect_abort(proc, r'out of step',
                  r'rank 0 is in update 4 of the multi-node optimizer',
                  r'rank 1 is in update 5 of the multi-node optimizer')


def test_uneven_epochs_fail_clearly(mpirun):
    proc = _run(mpirun, 'uneven_epoch')
    _expect_abort(proc, r'rank 1 of 2 exited \(the end of its program, after update 50 of the '
                        r'multi-node optimizer \(t=50, epoch 1\)',
                  r'rank 0 waits for it in update 51 of the multi-node optimizer '
                  r'\(t=50, epoch 0\)',
                  r'force_equal_length')


@pytest.mark.parametrize('case, patterns', [
    ('transposed_weights', [r"W: rank 0 \(6, 4\) float32, rank 1 \(4, 6\) float32"]),
    ('float16_on_rank_0', [r"W: rank 0 \(6, 4\) float16, rank 1 \(6, 4\) float32",
                           r"b: rank 0 \(6,\) float16, rank 1 \(6,\) float32"]),
    ('extra_parameter_on_rank_1', [r"b: rank 1 \(6,\) float32, missing on rank 0"]),
])
def test_models_that_differ_are_named_at_setup(mpirun, case, patterns):
    proc = _run(mpirun, case)
    _expect_abort(proc, r'ValueError: .*the ranks.* models differ', *patterns)
    assert 'MPI_ERR_TRUNCATE' not in proc.stderr


def test_mismatched_collectives_are_reported(mpirun):
    proc = _run(mpirun, 'out_of_step')
    _expect_abort(proc, r'out of step', r'rank 0 is in bcast_obj \(root 0\)',
                  r'rank 1 is in allreduce_obj')


def test_sigterm(mpirun):
    proc = _run(mpirun, 'sigterm')
    _expect_abort(proc, r'rank 1 of 2 got signal SIGTERM', r'aborting the job')


def test_sigterm_while_blocked_in_mpi(mpirun):
    proc = _run(mpirun, 'sigterm_while_blocked')
    _expect_abort(proc, r'rank 1 of 2 got signal SIGTERM', r'aborting the job')


def test_sigint(mpirun):
    proc = _run(mpirun, 'sigint')
    _expect_abort(proc, r'KeyboardInterrupt', r'rank 1 of 2 exited \(exception '
                                              r'KeyboardInterrupt')


def test_normal_end_while_peer_waits_outside_chainlite(mpirun):
    proc = _run(mpirun, 'normal_end_while_peer_in_raw_mpi',
                env={'CHAINLITE_DISTRIBUTED_EXIT_TIMEOUT': '2'})
    _expect_abort(proc, r'rank 1 of 2 reached the end of its program, but rank 0 did not '
                        r'within 2 s', r'CHAINLITE_DISTRIBUTED_EXIT_TIMEOUT')


def test_waiting_costs_little_cpu_and_ending_apart_is_fine(mpirun):
    proc = _run(mpirun, 'wait_then_end_apart', env={'CHAINLITE_DISTRIBUTED_EXIT_TIMEOUT': '30'})
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert 'rank 0 finished' in proc.stdout and 'rank 1 finished' in proc.stdout
    wall, cpu = map(float, re.search(r'WAIT wall ([\d.]+) cpu ([\d.]+)', proc.stdout).groups())
    assert wall > 1.5
    assert cpu < 0.3 * wall, (wall, cpu)     # busy-polling costs about the whole wait


def test_explain_layouts_names_what_differs():
    infos = [(0, [('/W', (6, 4), 'float32'), ('/b', (6,), 'float32')]),
             (1, [('/W', (4, 6), 'float32')]),
             (2, [('/W', (6, 4), 'float32'), ('/b', None, None)])]
    assert _stopping.explain_layouts(infos, 'the models', ' (!)') == (
        'the models differ (!): /W: ranks 0, 2 (6, 4) float32, rank 1 (4, 6) float32; '
        '/b: rank 0 (6,) float32, rank 2 uninitialized, missing on rank 1')
