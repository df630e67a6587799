"""Data-parallel training in a real 2-process MPI job (scripts/check_training.py): the
multi-node optimizer equals one process on the whole batch (Adam and MomentumSGD, 1e-6 after
20 steps), the sharded update (the same, with hooks, lr changes and
the saved state), double buffering, lazily initialized models, the trainer with the multi-node
evaluator, early stopping, snapshot resume, the checkpointer and the generic evaluator."""
import pytest

CHECKS = [
    'check_optimizer_equivalence', 'check_sharded_update', 'check_double_buffering',
    'check_lazy_parameters', 'check_trainer_and_evaluator', 'check_early_stopping',
    'check_snapshot_resume', 'check_sharded_snapshot_resume', 'check_checkpointer',
    'check_generic_evaluator',
]


@pytest.mark.parametrize('check', CHECKS)
def test_check(training_job, check):
    training_job.expect(check)


def test_job_exits_cleanly(training_job):
    assert training_job.proc.returncode == 0, training_job.proc.stderr[-4000:]
