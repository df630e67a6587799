import os
import types

import numpy as np
import pytest

import chainlite.links as L
from chainlite import optimizers
from chainlite import serializers
from chainlite import training
from chainlite.iterators.serial_iterator import SerialIterator
from chainlite.training import extensions
from chainlite.training.extensions import snapshot_writers


class _Counter:
    def __init__(self, n=0):
        self.n = n

    def serialize(self, serializer):
        self.n = serializer('n', self.n)


def _fake_trainer(tmp_path, iteration=0):
    return types.SimpleNamespace(out=str(tmp_path),
                                 updater=types.SimpleNamespace(iteration=iteration))


def _take(ext, trainer, counter, iterations):
    for i in iterations:
        trainer.updater.iteration = counter.n = i
        ext(trainer)


def _touch_order(tmp_path, names):
    # Distinct modification times, oldest first, whatever the file system's resolution.
    for t, name in enumerate(names):
        os.utime(tmp_path / name, ns=(10**9 * (t + 1), 10**9 * (t + 1)))


def _make_trainer(out, stop=(2, 'epoch')):
    data = [(np.full(2, i, np.float32), np.int32(i % 2)) for i in range(4)]
    model = L.Classifier(L.Linear(2, 2, initialW=np.ones((2, 2), np.float32)))
    optimizer = optimizers.MomentumSGD(lr=0.1).setup(model)
    updater = training.updaters.StandardUpdater(SerialIterator(data, 2, shuffle=False),
                                                optimizer)
    return training.Trainer(updater, stop, out=str(out)), model


def test_saves_the_trainer_under_the_formatted_name_once_per_epoch(tmp_path):
    trainer, model = _make_trainer(tmp_path)
    ext = extensions.snapshot()
    assert ext.trigger == (1, 'epoch') and ext.priority == -100
    trainer.extend(ext)
    trainer.run()
    assert sorted(os.listdir(tmp_path)) == ['snapshot_iter_2', 'snapshot_iter_4']
    with np.load(tmp_path / 'snapshot_iter_4') as f:
        np.testing.assert_array_equal(f['updater/model:main/predictor/W'], model.predictor.W.array)
        assert int(f['updater/iteration']) == 4


def test_autoload_resumes_training_from_the_newest_snapshot(tmp_path):
    trainer, _ = _make_trainer(tmp_path, stop=(1, 'epoch'))
    trainer.extend(extensions.snapshot(autoload=True))
    trainer.run()
    reference, reference_model = _make_trainer(tmp_path / 'reference', stop=(3, 'epoch'))
    reference.run()

    resumed, model = _make_trainer(tmp_path, stop=(3, 'epoch'))
    resumed.extend(extensions.snapshot(autoload=True))
    resumed.run()
    assert resumed.updater.iteration == 6  # continued from 2, not restarted
    np.testing.assert_allclose(model.predictor.W.array, reference_model.predictor.W.array,
                               rtol=1e-6)
    assert sorted(n for n in os.listdir(tmp_path) if n.startswith('snap')) == [
        'snapshot_iter_2', 'snapshot_iter_4', 'snapshot_iter_6']


def test_snapshot_object_and_autoload_of_an_object(tmp_path):
    trainer = _fake_trainer(tmp_path)
    counter = _Counter()
    ext = extensions.snapshot_object(counter, 'counter_{.updater.iteration}.npz')
    _take(ext, trainer, counter, [1, 2, 10])
    _touch_order(tmp_path, ['counter_1.npz', 'counter_2.npz', 'counter_10.npz'])
    loaded = _Counter()
    extensions.snapshot_object(loaded, 'counter_{.updater.iteration}.npz',
                               autoload=True).initialize(trainer)
    assert loaded.n == 10


def test_autoload_without_snapshots_or_output_directory_does_nothing(tmp_path):
    counter = _Counter(5)
    ext = extensions.snapshot(target=counter, autoload=True)
    ext.initialize(_fake_trainer(tmp_path / 'missing'))
    ext.initialize(_fake_trainer(tmp_path))
    assert counter.n == 5


def test_n_retains_keeps_the_newest(tmp_path):
    trainer = _fake_trainer(tmp_path)
    counter = _Counter()
    (tmp_path / 'log').write_text('[]')
    ext = extensions.snapshot(target=counter, filename='snap_{.updater.iteration}',
                              n_retains=2)
    ext.initialize(trainer)
    ext.initialize(trainer)  # the cleanup hook is added once
    assert len(ext.writer._post_save_hooks) == 1
    _take(ext, trainer, counter, [8, 9, 10, 11])
    assert sorted(os.listdir(tmp_path)) == ['log', 'snap_10', 'snap_11']


def test_files_with_equal_times_are_ordered_by_number(tmp_path):
    from chainlite.training.extensions import _snapshot
    for name in ['snap_9', 'snap_10', 'snap_100', 'other_5']:
        (tmp_path / name).write_bytes(b'')
        os.utime(tmp_path / name, ns=(10**9, 10**9))
    found = _snapshot._find_snapshot_files('snap_{.updater.iteration}', str(tmp_path))
    assert [name for _, name in found] == ['snap_9', 'snap_10', 'snap_100']
    assert [t for t, _ in found] == [1.0, 1.0, 1.0]   # (mtime, name) pairs, as Chainer's
    assert _snapshot._find_latest_snapshot('snap_{}', str(tmp_path)) == 'snap_100'
    assert list(_snapshot._find_stale_snapshots('snap_{}', str(tmp_path), 2)) == ['snap_9']
    assert list(_snapshot._find_stale_snapshots('snap_{}', str(tmp_path), 5)) == []
    assert _snapshot._find_latest_snapshot('none_{}', str(tmp_path)) is None


def test_subdirectories_in_the_filename(tmp_path):
    trainer = _fake_trainer(tmp_path)
    counter = _Counter()
    ext = extensions.snapshot(target=counter, filename='snaps/s_{.updater.iteration}',
                              n_retains=1)
    ext.initialize(trainer)
    _take(ext, trainer, counter, [1, 2])
    assert os.listdir(tmp_path / 'snaps') == ['s_2']
    loaded = _Counter()
    extensions.snapshot(target=loaded, filename='snaps/s_{.updater.iteration}',
                        autoload=True).initialize(trainer)
    assert loaded.n == 2


def test_a_savefun_failing_mid_write_leaves_the_previous_snapshot_newest(tmp_path):
    trainer = _fake_trainer(tmp_path)
    counter = _Counter()
    calls = []

    def flaky_save(path, target):
        calls.append(path)
        if len(calls) == 2:  # a partial file, then a crash
            with open(path, 'wb') as f:
                f.write(b'PK\x03\x04 partial')
            raise KeyboardInterrupt
        serializers.save_npz(path, target)

    ext = extensions.snapshot(flaky_save, target=counter, filename='s_{.updater.iteration}',
                              n_retains=5)
    ext.initialize(trainer)
    _take(ext, trainer, counter, [1])
    with pytest.raises(KeyboardInterrupt):
        _take(ext, trainer, counter, [2])
    assert os.listdir(tmp_path) == ['s_1']  # no partial file, no temporary file
    assert os.path.basename(calls[1]) != 's_2'  # written under a temporary name
    loaded = _Counter()
    extensions.snapshot(target=loaded, filename='s_{.updater.iteration}',
                        autoload=True).initialize(trainer)
    assert loaded.n == 1


def test_autoload_skips_a_corrupt_newest_file_with_a_warning(tmp_path):
    trainer = _fake_trainer(tmp_path)
    counter = _Counter()
    _take(extensions.snapshot(target=counter, filename='s_{.updater.iteration}'), trainer,
          counter, [1, 2])
    with open(tmp_path / 's_2', 'r+b') as f:  # e.g. truncated by a non-atomic writer
        f.truncate(30)
    (tmp_path / 's_3').write_bytes(b'')
    _touch_order(tmp_path, ['s_1', 's_2', 's_3'])
    loaded = _Counter()
    with pytest.warns(UserWarning) as record:
        extensions.snapshot(target=loaded, filename='s_{.updater.iteration}',
                            autoload=True).initialize(trainer)
    messages = [str(r.message) for r in record]
    assert len(messages) == 2
    assert 's_3' in messages[0] and 's_2' in messages[1]
    assert 'not a complete NPZ archive' in messages[0]
    assert loaded.n == 1


def test_leftover_temporary_files_are_ignored(tmp_path):
    trainer = _fake_trainer(tmp_path)
    counter = _Counter()
    _take(extensions.snapshot(target=counter, filename='{.updater.iteration}'), trainer,
          counter, [1])
    (tmp_path / '.2.0123456789ab.tmp').write_bytes(b'garbage')  # from a killed process
    loaded = _Counter()
    extensions.snapshot(target=loaded, filename='{.updater.iteration}',
                        autoload=True).initialize(trainer)
    assert loaded.n == 1


def test_condition_callable_filename_and_on_error(tmp_path):
    trainer = _fake_trainer(tmp_path)
    counter = _Counter()
    allowed = [False, True]
    ext = extensions.snapshot(target=counter, condition=lambda: allowed.pop(0),
                              filename=lambda t: 'it%d' % t.updater.iteration)
    _take(ext, trainer, counter, [1, 2])
    assert os.listdir(tmp_path) == ['it2']
    ext = extensions.snapshot(target=counter, filename='err_{.updater.iteration}',
                              snapshot_on_error=True)
    ext.on_error(trainer, RuntimeError(), None)
    assert 'err_2' in os.listdir(tmp_path)
    extensions.snapshot(target=counter, filename='x').on_error(trainer, RuntimeError(), None)
    assert 'x' not in os.listdir(tmp_path)


def test_snapshot_on_error_in_a_trainer(tmp_path):
    trainer, _ = _make_trainer(tmp_path, stop=(10, 'epoch'))

    def fail(t):
        raise RuntimeError('boom')

    trainer.extend(fail, trigger=(3, 'iteration'))
    trainer.extend(extensions.snapshot(filename='crash_{.updater.iteration}',
                                       snapshot_on_error=True), trigger=(100, 'epoch'))
    with pytest.raises(RuntimeError, match='boom'):
        trainer.run(show_loop_exception_msg=False)
    assert os.listdir(tmp_path) == ['crash_3']


def test_argument_errors():
    with pytest.raises(TypeError, match='savefun and writer'):
        extensions.snapshot(serializers.save_npz, writer=snapshot_writers.SimpleWriter())
    with pytest.raises(ValueError, match='autoload and n_retains'):
        extensions.snapshot(filename=lambda t: 'x', autoload=True)
    with pytest.raises(ValueError, match='directory'):
        extensions.snapshot(filename='{.updater.epoch}/x', n_retains=1)
    with pytest.raises(TypeError, match='filename'):
        extensions.snapshot(filename=3)
    with pytest.raises(TypeError, match='multiple values'):
        extensions.snapshot_object(_Counter(), 'x', target=_Counter())
    with pytest.raises(TypeError):
        extensions.snapshot(None, 'x', _Counter())  # target is keyword-only


def test_a_given_writer_is_used_and_finalized(tmp_path):
    class Recording(snapshot_writers.Writer):
        def __init__(self):
            super().__init__()
            self.calls, self.finalized = [], False

        def __call__(self, filename, outdir, target):
            self.calls.append((filename, outdir, sorted(target)))

        def finalize(self):
            self.finalized = True

    writer = Recording()
    ext = extensions.snapshot(writer=writer, target=_Counter(3), filename='w')
    ext(_fake_trainer(tmp_path))
    ext.finalize()
    assert writer.calls == [('w', str(tmp_path), ['n'])] and writer.finalized


def test_a_background_writer_saves_the_values_at_snapshot_time(tmp_path):
    import threading
    release = threading.Event()

    def slow_save(path, target):
        release.wait(5)
        serializers.save_npz(path, target)

    model = L.Linear(2, 2, initialW=np.zeros((2, 2), np.float32))
    ext = extensions.snapshot_object(model, 'm', writer=snapshot_writers.ThreadWriter(slow_save))
    ext(_fake_trainer(tmp_path))
    model.W.array[...] = 7  # training goes on while the thread writes
    release.set()
    ext.finalize()
    with np.load(tmp_path / 'm') as f:
        np.testing.assert_array_equal(f['W'], np.zeros((2, 2)))
