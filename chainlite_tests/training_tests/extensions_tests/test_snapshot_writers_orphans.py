"""A writer's process ends with the trainer and never deletes snapshots once it is gone."""
import os

import numpy as np
import pytest

from chainlite.iterators import _lifeline
from chainlite.training.extensions import _snapshot
from chainlite.training.extensions import snapshot_writers
from chainlite_tests.iterators_tests.test_multiprocess_iterator_orphans import (
    kill_and_check_no_orphans, linux_only, start_parent, wait_for)

FMT = 'snapshot_iter_{.updater.iteration}'

PARENT = '''
    import os, sys, time
    from chainlite.training.extensions import _snapshot, snapshot_writers

    outdir, kind = sys.argv[1], sys.argv[2]

    def slow_save(path, target):
        open(os.path.join(outdir, 'started'), 'w').close()
        time.sleep(1.5)  # the parent is killed meanwhile
        with open(path, 'wb') as f:
            f.write(b'new')

    writer = getattr(snapshot_writers, kind)(savefun=slow_save)
    writer._add_cleanup_hook(_snapshot._Cleanup(%r, outdir, 1))
    writer('snapshot_iter_4', outdir, {})
    time.sleep(60)
''' % FMT


def _old_snapshots(outdir):
    for i in (1, 2, 3):
        with open(os.path.join(outdir, 'snapshot_iter_%d' % i), 'wb') as f:
            f.write(b'old')


@linux_only
@pytest.mark.parametrize('kind', ['ProcessWriter', 'ProcessQueueWriter'])
def test_writer_process_dies_with_a_sigkilled_trainer_and_deletes_nothing(tmp_path, kind):
    _old_snapshots(tmp_path)
    proc, marker = start_parent(PARENT, str(tmp_path), kind)
    assert wait_for(lambda: os.path.exists(tmp_path / 'started'), 20), 'no save started'
    kill_and_check_no_orphans(proc, marker, children=1, timeout=1.0)
    # (before this fix the writer lived on to save snapshot 4 and delete 1 to 3)
    names = sorted(n for n in os.listdir(tmp_path) if n.startswith('snapshot_iter_'))
    assert names == ['snapshot_iter_1', 'snapshot_iter_2', 'snapshot_iter_3']


def test_deletion_is_skipped_once_the_parent_is_gone(tmp_path, monkeypatch):
    _old_snapshots(tmp_path)
    writer = snapshot_writers.SimpleWriter()
    writer._add_cleanup_hook(_snapshot._Cleanup(FMT, str(tmp_path), 1))
    # This process as a writer's child whose parent exited (its parent pid is not -1).
    monkeypatch.setattr(_lifeline, '_watched', (-1, None, os.getpid()))
    assert not _lifeline.parent_alive()
    writer('snapshot_iter_4', str(tmp_path), {'x': np.zeros(1)})
    _snapshot._Cleanup(FMT, str(tmp_path), 1)()
    assert len([n for n in os.listdir(tmp_path) if n.startswith('snapshot_iter_')]) == 4
    # With the parent alive, the same hook deletes all but the newest.
    monkeypatch.setattr(_lifeline, '_watched', None)
    writer('snapshot_iter_5', str(tmp_path), {'x': np.zeros(1)})
    assert [n for n in os.listdir(tmp_path) if n.startswith('snapshot_iter_')] == [
        'snapshot_iter_5']
