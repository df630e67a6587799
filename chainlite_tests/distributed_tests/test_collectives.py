"""Communicators, datasets, iterators and differentiable communication, in real MPI jobs.

Each check runs inside one ``mpiexec`` job per size (2 and 3 processes: an odd size matters
for uneven splits, rings and roots other than 0); see scripts/check_collectives.py.
"""
import pytest

CHECKS = [
    'check_ranks', 'check_array_collectives', 'check_object_collectives', 'check_errors',
    'check_mean_grad', 'check_ring_reduction', 'check_sharded_update_sizes',
    'check_bcast_data', 'check_scatter_dataset', 'check_iterators',
    'check_allreduce_persistent', 'check_function_send_recv', 'check_function_collectives',
    'check_pseudo_connect', 'check_multi_node_batch_normalization',
    'check_mnbn_link_and_model', 'check_multi_node_chain_list',
    'check_multi_node_n_step_rnn',
]


@pytest.mark.parametrize('n', [2, 3])
@pytest.mark.parametrize('check', CHECKS)
def test_check(collectives_job, n, check):
    collectives_job(n).expect(check)


@pytest.mark.parametrize('n', [2, 3])
def test_job_exits_cleanly(collectives_job, n):
    job = collectives_job(n)
    assert job.proc.returncode == 0, job.proc.stderr[-4000:]
