import copy
import faulthandler
import gc
import io
import os
import pickle
import re
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from chainlite import iterators
from chainlite import serializers

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def no_hang():
    # A hang would be a bug: dump the stacks and end the run instead of waiting forever.
    faulthandler.dump_traceback_later(60, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


class Pids:
    """Each example is the id of the process that loaded it."""

    def __len__(self):
        return 8

    def __getitem__(self, index):
        return os.getpid()


class Failing:
    """Fails (in the way given) on one index."""

    def __init__(self, how, bad=2, n=6):
        self.how, self.bad, self.n = how, bad, n

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        if index == self.bad:
            if self.how == 'raise':
                raise ValueError('example %d is broken' % index)
            if self.how == 'exit':
                os._exit(3)
            if self.how == 'kill':
                os.kill(os.getpid(), signal.SIGKILL)
            if self.how == 'local':
                class LocalError(Exception):
                    pass
                raise LocalError('cannot be pickled')
            if self.how == 'unpicklable':
                return lambda: None
            if self.how == 'sleep':
                time.sleep(0.3)
        return int(index)


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_batches_and_epochs_match_chainer():
    # Chainer 7.8.1's MultiprocessIterator(n_processes=2) after numpy.random.seed(0).
    expected = [
        ([6, 2, 1], 0, 0.428571, 0.0, False), ([3, 0, 5], 0, 0.857143, 0.428571, False),
        ([4, 1, 0], 1, 1.285714, 0.857143, True), ([6, 3, 4], 1, 1.714286, 1.285714, False),
        ([2, 5, 6], 2, 2.142857, 1.714286, True), ([3, 5, 1], 2, 2.571429, 2.142857, False)]
    np.random.seed(0)
    with iterators.MultiprocessIterator(list(range(7)), 3, n_processes=2) as it:
        out = []
        for _ in range(6):
            batch = next(it)
            out.append(([int(x) for x in batch], it.epoch, round(it.epoch_detail, 6),
                        round(it.previous_epoch_detail, 6), it.is_new_epoch))
    assert out == expected


def test_without_repeat():
    with iterators.MultiprocessIterator(list(range(5)), 2, repeat=False, n_processes=2,
                                        shuffle=False, n_prefetch=3) as it:
        assert list(it) == [[0, 1], [2, 3], [4]]
        assert (it.epoch, it.epoch_detail, it.previous_epoch_detail) == (1, 1., 1.)
        with pytest.raises(StopIteration):
            next(it)
        it.reset()
        assert list(it) == [[0, 1], [2, 3], [4]]


def test_same_batches_as_serial_iterator_with_arrays():
    dataset = [(np.full((2, 3), i, np.float32), np.int32(i)) for i in range(11)]
    np.random.seed(4)
    serial_it = iterators.SerialIterator(dataset, 4)
    serial = [next(serial_it) for _ in range(9)]
    np.random.seed(4)
    with iterators.MultiprocessIterator(dataset, 4, n_processes=2, n_prefetch=2) as it:
        loaded = [next(it) for _ in range(9)]
        assert it._mem_size == 24  # measured on the first batch: shared memory is used
    for got, want in zip(loaded, serial):
        assert [int(x[1]) for x in got] == [int(x[1]) for x in want]
        for (x, t), (x0, t0) in zip(got, want):
            assert x.dtype == np.float32 and x.flags.owndata and x.flags.writeable
            np.testing.assert_array_equal(x, x0)


@pytest.mark.parametrize('shared_mem', [None, 1000, 0])
def test_example_kinds_travel_intact(shared_mem):
    def example(i):
        return {
            'array': np.arange(6, dtype=np.float64).reshape(2, 3) * i,
            'fortran': np.asfortranarray(np.arange(6, dtype=np.int16).reshape(3, 2)) + i,
            'scalar': np.array(i, np.int64),
            'empty': np.zeros((0, 4), np.float32),
            'object': np.array([None, i], dtype=object),
            'text': 'ex%d' % i,
        }

    dataset = [example(i) for i in range(5)]
    others = [np.arange(3) + 1, (np.ones(2, bool), 'label'), [np.float16(1.5), np.eye(2)]]
    with iterators.MultiprocessIterator(dataset, 2, repeat=False, shuffle=False,
                                        n_processes=2, shared_mem=shared_mem) as it:
        got = [x for batch in it for x in batch]
    for i, x in enumerate(got):
        assert list(x) == list(dataset[i])
        for key, value in dataset[i].items():
            if isinstance(value, np.ndarray):
                assert x[key].dtype == value.dtype and x[key].shape == value.shape
                assert x[key].tolist() == value.tolist()
            else:
                assert x[key] == value
    with iterators.MultiprocessIterator(others, 3, shuffle=False, n_processes=1,
                                        shared_mem=shared_mem) as it:
        a, (b, label), (c, d) = next(it)
    np.testing.assert_array_equal(a, [1, 2, 3])
    assert b.dtype == bool and b.tolist() == [True, True] and label == 'label'
    assert c == np.float16(1.5) and d.tolist() == [[1., 0.], [0., 1.]]


def test_too_small_shared_memory_warns_and_pickles():
    dataset = [np.full(100, i, np.float64) for i in range(4)]
    with iterators.MultiprocessIterator(dataset, 2, shuffle=False, n_processes=1,
                                        shared_mem=64) as it:
        with pytest.warns(UserWarning, match='larger shared_mem'):
            batch = next(it)
    assert [x[0] for x in batch] == [0., 1.] and batch[0].shape == (100,)


def test_dataset_error_in_a_worker_reaches_the_caller_quickly():
    with iterators.MultiprocessIterator(Failing('raise'), 2, shuffle=False, n_processes=2,
                                        shared_mem=0) as it:
        assert next(it) == [0, 1]
        start = time.monotonic()
        with pytest.raises(ValueError, match='example 2 is broken') as info:
            next(it)
        assert time.monotonic() - start < 5
        assert 'in __getitem__' in str(info.value.__cause__)  # the worker's traceback
        assert 'while loading example 2' in info.value.__notes__[0]
        assert (it.epoch, it.current_position) == (0, 2)
        with pytest.raises(ValueError, match='example 2 is broken'):
            next(it)  # the same batch is tried again
        it.reset()
        assert next(it) == [0, 1]


@pytest.mark.parametrize('how, error, message', [
    ('local', RuntimeError, 'LocalError: cannot be pickled'),
    ('unpicklable', Exception, 'pickle'),
])
def test_errors_that_cannot_be_pickled(how, error, message):
    with iterators.MultiprocessIterator(Failing(how), 3, shuffle=False, n_processes=1,
                                        shared_mem=0) as it:
        with pytest.raises(error, match=message):
            next(it)


@pytest.mark.parametrize('how, message', [('exit', 'exited with code 3'),
                                          ('kill', 'killed by signal SIGKILL')])
def test_a_dying_worker_raises_and_the_workers_restart(how, message):
    it = iterators.MultiprocessIterator(Failing(how), 2, shuffle=False, n_processes=2,
                                        shared_mem=0)
    assert next(it) == [0, 1]
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=message):
        next(it)
    assert time.monotonic() - start < 5
    assert it._pool is None
    it.reset()
    assert next(it) == [0, 1]
    it.finalize()


def test_measuring_batch_errors_are_raised_directly():
    with iterators.MultiprocessIterator(Failing('raise', bad=0), 2, shuffle=False) as it:
        with pytest.raises(ValueError, match='example 0 is broken'):
            next(it)


def test_finalize_terminates_workers_for_good():
    it = iterators.MultiprocessIterator(Pids(), 4, shuffle=False, n_processes=2, shared_mem=0)
    pids = set(next(it))
    assert os.getpid() not in pids and all(alive(pid) for pid in pids)
    it.finalize()
    it.finalize()
    assert not any(alive(pid) for pid in pids)
    # As in Chainer, a finalized iterator is not reset; chainlite's next says so too.
    for use in (it.reset, lambda: next(it)):
        with pytest.raises(NotImplementedError, match='MultiprocessIterator.* was finalized'):
            use()
    # Saving a snapshot still works; loading another state does not.
    target = {}
    it.serialize(serializers.DictionarySerializer(target))
    assert int(target['current_position']) == 4
    target['current_position'] = np.array(0)
    with pytest.raises(NotImplementedError, match='finalized'):
        it.serialize(serializers.NpzDeserializer(target))
    # A copy is a new iterator at the same position, with its own workers.
    other = copy.copy(it)
    try:
        new_pids = set(next(other))
        assert not new_pids & pids and other.epoch_detail == 1.0
        other.reset()
        assert other.epoch_detail == 0.0
    finally:
        other.finalize()
    assert not any(alive(pid) for pid in new_pids)


def test_garbage_collection_terminates_workers():
    it = iterators.MultiprocessIterator(Pids(), 4, shuffle=False, n_processes=2, shared_mem=0)
    pids = set(next(it))
    del it
    gc.collect()
    assert not any(alive(pid) for pid in pids)


def test_maxtasksperchild_replaces_workers():
    with iterators.MultiprocessIterator(Pids(), 2, shuffle=False, n_processes=1,
                                        shared_mem=0, maxtasksperchild=1) as it:
        pids = [pid for _ in range(3) for pid in next(it)]
    assert len(set(pids)) == len(pids)  # one example per task, one task per worker


def test_stalled_dataset_warns():
    with iterators.MultiprocessIterator(Failing('sleep', bad=0, n=2), 2, shuffle=False,
                                        n_processes=1, shared_mem=0,
                                        dataset_timeout=0.05) as it:
        with pytest.warns(iterators.MultiprocessIterator.TimeoutWarning, match='stalled'):
            assert next(it) == [0, 1]


def test_reset_while_batches_are_loading():
    dataset = [np.full(3, i, np.int32) for i in range(10)]
    with iterators.MultiprocessIterator(dataset, 3, shuffle=False, n_processes=2,
                                        n_prefetch=3) as it:
        for _ in range(5):
            next(it)
            next(it)
            it.reset()  # batches on their way are dropped; their shared memory is reused
            assert it.previous_epoch_detail is None
        batches = [[int(x[0]) for x in next(it)] for _ in range(4)]
    assert batches == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 0, 1]]


def test_serialize_and_resume():
    np.random.seed(1)
    it = iterators.MultiprocessIterator(list(range(7)), 3, n_processes=2, n_prefetch=2)
    for _ in range(3):
        next(it)
    target = serializers.DictionarySerializer()
    it.serialize(target)
    assert sorted(target.target) == ['current_position', 'epoch', 'is_new_epoch', 'order',
                                     'previous_epoch_detail']
    buffer = io.BytesIO()
    serializers.save_npz(buffer, it)
    buffer.seek(0)
    resumed = iterators.MultiprocessIterator(list(range(7)), 3, n_processes=1)
    serializers.load_npz(buffer, resumed)
    assert (resumed.epoch, resumed.current_position, resumed.previous_epoch_detail) == (
        it.epoch, it.current_position, it.previous_epoch_detail)
    assert next(resumed)[:2] == next(it)[:2]  # the rest of the saved epoch's order
    it.finalize()
    resumed.finalize()
    plain = iterators.MultiprocessIterator(list(range(4)), 3, shuffle=False, n_processes=1)
    plain.serialize(target)  # no order: no 'order' key (Chainer fails here)
    assert plain._state.order is None


def test_copy_is_independent():
    with iterators.MultiprocessIterator(list(range(6)), 2, shuffle=False,
                                        n_processes=1) as it:
        next(it)
        other = copy.copy(it)
        assert other._pool is None and other.epoch_detail == it.epoch_detail
        assert next(other) == next(it) == [2, 3]
        other.finalize()
        assert next(it) == [4, 5]


@pytest.mark.parametrize('shared_mem', [None, 10 ** 6])
def test_pickle_while_workers_run(shared_mem):
    # The running workers and shared buffer stay behind; the copy resumes at the position.
    data = list(range(6))
    with iterators.MultiprocessIterator(data, 2, n_processes=2, n_prefetch=2,
                                        shared_mem=shared_mem) as it:
        first = next(it) + next(it)
        other = pickle.loads(pickle.dumps(it))
        try:
            assert other._pool is None
            assert (other.epoch_detail, other.previous_epoch_detail) == (4 / 6, 2 / 6)
            assert not other.is_new_epoch
            last = next(other)
            assert other.is_new_epoch and other.epoch_detail == 1.0
            assert sorted(first + last) == data
            assert next(it) == last  # the original goes on undisturbed
        finally:
            other.finalize()


def test_argument_errors():
    with pytest.raises(ValueError, match='MultiprocessIterator: n_processes'):
        iterators.MultiprocessIterator([1], 1, n_processes=0)
    with pytest.raises(ValueError, match='shared_mem'):
        iterators.MultiprocessIterator([1], 1, shared_mem=-1)
    with pytest.raises(ValueError, match='dataset_timeout'):
        iterators.MultiprocessIterator([1], 1, dataset_timeout=0)
    with pytest.raises(ValueError, match='MultiprocessIterator.*shuffle'):
        iterators.MultiprocessIterator([1], 1, shuffle=False,
                                       order_sampler=iterators.ShuffleOrderSampler())
    it = iterators.MultiprocessIterator([1], 1, n_prefetch=0)
    assert it.n_prefetch == 1 and it.n_processes >= 1


def test_remote_error_always_pickles():
    from chainlite.iterators import _process_pool
    remote = pickle.loads(pickle.dumps(_process_pool.RemoteError(KeyError('k'), 4)))
    error = remote.rebuild()
    assert isinstance(error, KeyError) and 'KeyError' in str(error.__cause__)


def run_script(body):
    script = 'import os, sys, time\nsys.path.insert(0, %r)\n' % REPO + textwrap.dedent(body)
    start = time.monotonic()
    result = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True,
                            timeout=30)
    return result, time.monotonic() - start


def test_interpreter_exits_while_workers_are_busy():
    result, seconds = run_script('''
        from chainlite import iterators

        class Slow:
            def __len__(self):
                return 100

            def __getitem__(self, index):
                if index >= 2:
                    time.sleep(100)
                return int(index)

        it = iterators.MultiprocessIterator(Slow(), 2, shuffle=False, n_processes=2,
                                            shared_mem=0)
        print(next(it))
    ''')
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == '[0, 1]'
    assert result.stderr == ''
    assert seconds < 15


def test_uncaught_worker_error_ends_the_program():
    result, seconds = run_script('''
        from chainlite import iterators

        class Broken:
            def __len__(self):
                return 10

            def __getitem__(self, index):
                raise OSError('cannot read example %d' % index)

        it = iterators.MultiprocessIterator(Broken(), 2, shuffle=False, n_processes=2,
                                            shared_mem=0)
        next(it)
    ''')
    assert result.returncode == 1
    # Whichever of the batch's examples fails first is reported.
    assert re.search(r'OSError: cannot read example [01]\n', result.stderr), result.stderr
    assert 'MultiprocessIterator worker process' in result.stderr
    assert seconds < 15
