import io
import threading

import numpy as np
import pytest

from chainlite import iterators
from chainlite import serializers


def run(it, steps):
    out = []
    for _ in range(steps):
        try:
            batch = [int(x) for x in next(it)]
        except StopIteration:
            batch = 'stop'
        previous = it.previous_epoch_detail
        out.append((batch, it.epoch, round(it.epoch_detail, 6),
                    None if previous is None else round(previous, 6), it.is_new_epoch))
    return out


@pytest.mark.parametrize('config, expected', [
    # Chainer 7.8.1's MultithreadIterator after numpy.random.seed(0).
    ((7, 3, True, None, 6), [
        ([6, 2, 1], 0, 0.428571, 0.0, False), ([3, 0, 5], 0, 0.857143, 0.428571, False),
        ([4, 1, 0], 1, 1.285714, 0.857143, True), ([6, 3, 4], 1, 1.714286, 1.285714, False),
        ([2, 5, 6], 2, 2.142857, 1.714286, True), ([3, 5, 1], 2, 2.571429, 2.142857, False)]),
    ((5, 2, False, None, 4), [
        ([2, 0], 0, 0.4, 0.0, False), ([1, 3], 0, 0.8, 0.4, False), ([4], 1, 1.0, 0.8, True),
        ('stop', 1, 1.0, 1.0, True)]),
    ((3, 5, True, None, 3), [
        ([2, 1, 0, 2, 0], 1, 1.666667, 0.0, True), ([1, 0, 2, 1, 2], 3, 3.333333, 1.666667, True),
        ([0, 1, 2, 1, 0], 5, 5.0, 3.333333, True)]),
])
def test_batches_and_epochs_match_chainer(config, expected):
    n, batch_size, repeat, shuffle, steps = config
    np.random.seed(0)
    with iterators.MultithreadIterator(list(range(n)), batch_size, repeat=repeat,
                                       shuffle=shuffle, n_threads=2) as it:
        assert run(it, steps) == expected


def test_prefetch_draws_orders_as_chainer_does():
    np.random.seed(2)
    with iterators.MultithreadIterator(list(range(5)), 2, n_threads=3) as it:
        assert [next(it) for _ in range(5)] == [[2, 4], [1, 3], [0, 4], [1, 0], [2, 3]]
    assert np.random.randint(1000000) == 404287  # Chainer 7.8.1's


def test_examples_are_loaded_in_threads():
    names = set()

    class Dataset:
        def __len__(self):
            return 8

        def __getitem__(self, index):
            names.add(threading.current_thread().name)
            return index * 10

    with iterators.MultithreadIterator(Dataset(), 4, repeat=False, shuffle=False,
                                       n_threads=2) as it:
        assert list(it) == [[0, 10, 20, 30], [40, 50, 60, 70]]
    assert threading.current_thread().name not in names


def test_dataset_error_reaches_the_caller():
    class Broken:
        def __len__(self):
            return 4

        def __getitem__(self, index):
            if index == 2:
                raise KeyError('no example 2')
            return index

    with iterators.MultithreadIterator(Broken(), 2, shuffle=False) as it:
        assert next(it) == [0, 1]
        with pytest.raises(KeyError, match='no example 2'):
            next(it)


def test_finalize_stops_the_threads_and_iteration_can_go_on():
    it = iterators.MultithreadIterator(list(range(4)), 2, shuffle=False, n_threads=2)
    assert next(it) == [0, 1]
    pool = it._pool
    it.finalize()
    it.finalize()
    assert pool._state != 'RUN'
    assert next(it) == [2, 3]  # a new pool
    it.finalize()


def test_reset_and_resume():
    np.random.seed(1)
    it = iterators.MultithreadIterator(list(range(7)), 3)
    for _ in range(2):
        next(it)
    target = serializers.DictionarySerializer()
    it.serialize(target)
    assert sorted(target.target) == ['_order', 'current_position', 'epoch', 'is_new_epoch',
                                     'previous_epoch_detail']  # Chainer's keys
    buffer = io.BytesIO()
    serializers.save_npz(buffer, it)
    buffer.seek(0)
    resumed = iterators.MultithreadIterator(list(range(7)), 3)
    serializers.load_npz(buffer, resumed)
    assert (resumed.epoch_detail, resumed.previous_epoch_detail) == (it.epoch_detail,
                                                                     it.previous_epoch_detail)
    assert next(resumed)[:1] == next(it)[:1]  # the rest of the epoch, in the saved order
    it.reset()
    assert it.epoch == 0 and it.previous_epoch_detail is None and len(next(it)) == 3
    it.finalize()
    resumed.finalize()


def test_without_order_the_snapshot_holds_none():
    it = iterators.MultithreadIterator(list(range(4)), 3, shuffle=False)
    next(it)
    buffer = io.BytesIO()
    serializers.save_npz(buffer, it)
    buffer.seek(0)
    resumed = iterators.MultithreadIterator(list(range(4)), 3, shuffle=False)
    serializers.load_npz(buffer, resumed)
    assert resumed._state.order is None
    assert next(resumed) == [3, 0, 1]
    it.finalize()
    resumed.finalize()


def test_n_threads_must_be_positive():
    with pytest.raises(ValueError, match='MultithreadIterator: n_threads'):
        iterators.MultithreadIterator([1], 1, n_threads=0)
