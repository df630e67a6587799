"""Snapshots: the order sampler's random state travels with the iterator (a resumed run
shuffles as an uninterrupted one), and the temporary files of killed writes are cleaned up."""
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import chainlite
import chainlite.links as L
from chainlite import iterators, serializers, training
from chainlite.serializers import _atomic
from chainlite.training import extensions

N_DATA, BATCH = 40, 6   # 7 iterations per epoch, the last batch crossing the epoch


def _trainer(out, stop, iterator_class, seed=3):
    np.random.seed(0)
    rng = np.random.default_rng(1)
    data = [(rng.normal(size=4).astype(np.float32), np.int32(i % 3)) for i in range(N_DATA)]
    model = L.Classifier(L.Linear(4, 3))
    opt = chainlite.optimizers.SGD(lr=0.1).setup(model)
    sampler = iterators.ShuffleOrderSampler(np.random.RandomState(seed))
    kwargs = {'n_threads': 2} if iterator_class is iterators.MultithreadIterator else \
        {'n_processes': 2} if iterator_class is iterators.MultiprocessIterator else {}
    it = iterator_class(data, BATCH, order_sampler=sampler, **kwargs)
    updater = training.updaters.StandardUpdater(it, opt)
    trainer = training.Trainer(updater, stop, out=str(out))
    trainer.extend(extensions.snapshot(filename='snap'), trigger=stop)
    return trainer, model


@pytest.mark.parametrize('iterator_class', [iterators.SerialIterator,
                                            iterators.MultithreadIterator,
                                            iterators.MultiprocessIterator])
@pytest.mark.parametrize('split', [5, 7, 16])
def test_resume_matches_an_uninterrupted_run(tmp_path, iterator_class, split):
    total = 30
    straight, straight_model = _trainer(tmp_path / 'a', (total, 'iteration'),
                                           iterator_class)
    straight.run()

    first, _ = _trainer(tmp_path / 'b', (split, 'iteration'), iterator_class)
    first.run()
    # Everything new, the sampler's RandomState too (seeded alike, so it would restart the
    # same sequence of orders if its state were not restored).
    second, second_model = _trainer(tmp_path / 'b', (total, 'iteration'), iterator_class)
    serializers.load_npz(str(tmp_path / 'b' / 'snap'), second)
    second.run()
    for (name, p), (_, q) in zip(straight_model.namedparams(), second_model.namedparams()):
        np.testing.assert_array_equal(p.array, q.array, err_msg=name)


def test_sampler_state_round_trip(tmp_path):
    sampler = iterators.ShuffleOrderSampler(np.random.RandomState(5))
    sampler(np.arange(10), 0)
    np.random.RandomState(5).standard_normal()   # a cached gaussian must survive as well
    sampler._random.standard_normal()
    serializers.save_npz(str(tmp_path / 's.npz'), sampler)
    expected = [sampler(np.arange(10), 0) for _ in range(3)]
    restored = iterators.ShuffleOrderSampler(np.random.RandomState(99))
    serializers.load_npz(str(tmp_path / 's.npz'), restored)
    np.testing.assert_array_equal([restored(np.arange(10), 0) for _ in range(3)], expected)
    # The iterator saves it under order_sampler/.
    it = iterators.SerialIterator(list(range(10)), 3, order_sampler=sampler)
    saved = {}
    serializers.DictionarySerializer(saved).save(it)
    assert 'order_sampler/state_keys' in saved
    # A sampler on NumPy's global generator owns no state: nothing saved.
    saved = {}
    serializers.DictionarySerializer(saved).save(
        iterators.SerialIterator(list(range(10)), 3, shuffle=True))
    assert not any(k.startswith('order_sampler') for k in saved)


def test_old_snapshot_without_sampler_state_loads(tmp_path):
    # Saved with a sampler that has no state (as Chainer's snapshots, and older ones, are).
    np.random.seed(0)
    it = iterators.SerialIterator(list(range(10)), 3, shuffle=True)
    next(it)
    serializers.save_npz(str(tmp_path / 'it.npz'), it)
    target = iterators.SerialIterator(
        list(range(10)), 3, order_sampler=iterators.ShuffleOrderSampler(
            np.random.RandomState(0)))
    before = target.order_sampler._random.get_state()[1].copy()
    serializers.load_npz(str(tmp_path / 'it.npz'), target)
    assert target.current_position == 3
    np.testing.assert_array_equal(target.order_sampler._random.get_state()[1], before)


_KILLED_WRITER = textwrap.dedent('''
    import sys, time
    from chainlite.serializers import _atomic
    with _atomic.replacing(sys.argv[1]) as tmp:
        with open(tmp, 'wb') as f:
            f.write(b'partial')
            f.flush()
        print('writing', flush=True)
        time.sleep(60)
''')


def _killed_write(path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.Popen([sys.executable, '-c', _KILLED_WRITER, str(path)],
                         stdout=subprocess.PIPE, env=env)
    assert p.stdout.readline() == b'writing\n'
    p.send_signal(signal.SIGKILL)
    p.wait()
    p.stdout.close()


def _tmp_files(directory):
    return sorted(f for f in os.listdir(directory) if f.endswith('.tmp'))


def test_killed_write_leftovers_are_removed_by_the_next_write(tmp_path):
    target = tmp_path / 'snapshot_iter_7'
    _killed_write(target)
    _killed_write(tmp_path / 'other')
    left = _tmp_files(tmp_path)
    assert len(left) == 2 and left[1].startswith('.snapshot_iter_7.')
    assert not target.exists()
    model = L.Linear(2, 2)
    serializers.save_npz(str(target), model)
    # The leftover of this file is gone; another file's is not this write's business.
    assert [f for f in _tmp_files(tmp_path)] == [left[0]]
    assert left[0].startswith('.other.')
    loaded = L.Linear(2, 2)
    serializers.load_npz(str(target), loaded)
    np.testing.assert_array_equal(loaded.W.array, model.W.array)


def test_a_write_in_progress_is_not_removed(tmp_path):
    # A temporary file younger than the write that finishes belongs to a write under way.
    target = str(tmp_path / 'f')
    with _atomic.replacing(target) as tmp:
        with open(tmp, 'wb') as f:
            f.write(b'x')
        other = tmp_path / ('.f.%s.tmp' % ('a' * 12))
        other.write_bytes(b'y')
    assert other.exists()


def test_trainer_start_removes_leftovers(tmp_path):
    _killed_write(tmp_path / 'snapshot_iter_3')
    sub = tmp_path / 'models'
    sub.mkdir()
    (sub / ('.model.%s.tmp' % ('0' * 12))).write_bytes(b'partial')
    keep = tmp_path / '.hidden.tmp'            # not an atomic write's name
    keep.write_bytes(b'user file')
    assert len(_tmp_files(tmp_path)) == 2
    trainer, _ = _trainer(tmp_path, (1, 'iteration'), iterators.SerialIterator)
    trainer.run()
    assert _tmp_files(tmp_path) == ['.hidden.tmp'] and not _tmp_files(sub)
    assert (tmp_path / 'snap').exists()
