import io

import numpy as np
import pytest

from chainlite import iterators
from chainlite import serializers

# (dataset length, batch size, repeat, shuffle, steps) -> per step: (batch, epoch,
# epoch_detail, previous_epoch_detail, is_new_epoch), or 'stop' with the same counters after
# StopIteration. Produced by Chainer 7.8.1 after numpy.random.seed(0).
CHAINER_SWEEPS = [
    ((7, 3, True, None, 6), [
        ([6, 2, 1], 0, 0.428571, 0.0, False), ([3, 0, 5], 0, 0.857143, 0.428571, False),
        ([4, 1, 0], 1, 1.285714, 0.857143, True), ([6, 3, 4], 1, 1.714286, 1.285714, False),
        ([2, 5, 6], 2, 2.142857, 1.714286, True), ([3, 5, 1], 2, 2.571429, 2.142857, False)]),
    ((5, 2, False, None, 4), [
        ([2, 0], 0, 0.4, 0.0, False), ([1, 3], 0, 0.8, 0.4, False), ([4], 1, 1.0, 0.8, True),
        ('stop', 1, 1.0, 1.0, True)]),
    ((4, 4, True, None, 3), [
        ([2, 3, 1, 0], 1, 1.0, 0.0, True), ([0, 2, 1, 3], 2, 2.0, 1.0, True),
        ([3, 0, 2, 1], 3, 3.0, 2.0, True)]),
    ((3, 5, True, None, 3), [
        ([2, 1, 0, 2, 0], 1, 1.666667, 0.0, True), ([1, 0, 2, 1, 2], 3, 3.333333, 1.666667, True),
        ([0, 1, 2, 1, 0], 5, 5.0, 3.333333, True)]),
    ((5, 2, False, False, 5), [
        ([0, 1], 0, 0.4, 0.0, False), ([2, 3], 0, 0.8, 0.4, False), ([4], 1, 1.0, 0.8, True),
        ('stop', 1, 1.0, 1.0, True), ('stop', 1, 1.0, 1.0, True)]),
    ((4, 3, False, True, 3), [
        ([2, 3, 1], 0, 0.75, 0.0, False), ([0], 1, 1.0, 0.75, True),
        ('stop', 1, 1.0, 1.0, True)]),
]


def sweep(it, steps):
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


@pytest.mark.parametrize('config, expected', CHAINER_SWEEPS)
def test_batches_and_epochs_match_chainer(config, expected):
    n, batch_size, repeat, shuffle, steps = config
    np.random.seed(0)
    it = iterators.SerialIterator(list(range(n)), batch_size, repeat=repeat, shuffle=shuffle)
    assert it.previous_epoch_detail is None and it.epoch_detail == 0.
    assert sweep(it, steps) == expected


@pytest.mark.parametrize('config, expected', [
    ((5, 2, False, None, 4), 610581),  # the order sampler also runs at the end of the sweep
    ((7, 3, True, None, 6), 370775),
])
def test_random_stream_is_consumed_as_chainer_does(config, expected):
    n, batch_size, repeat, shuffle, steps = config
    np.random.seed(0)
    it = iterators.SerialIterator(list(range(n)), batch_size, repeat=repeat, shuffle=shuffle)
    sweep(it, steps)
    assert np.random.randint(1000000) == expected


def test_every_epoch_visits_every_example_once():
    np.random.seed(3)
    it = iterators.SerialIterator(list(range(10)), 4)
    seen = [x for _ in range(5) for x in next(it)]  # 20 examples: exactly two epochs
    assert sorted(seen[:10]) == list(range(10)) and sorted(seen[10:]) == list(range(10))
    assert seen[:10] != seen[10:]  # reshuffled
    assert it.epoch == 2 and it.is_new_epoch


def test_without_repeat_the_last_batch_is_short_and_iteration_stops():
    it = iterators.SerialIterator(np.arange(10) * 2, 4, repeat=False, shuffle=False)
    batches = list(it)
    assert [len(b) for b in batches] == [4, 4, 2]
    assert [int(x) for b in batches for x in b] == list(range(0, 20, 2))
    with pytest.raises(StopIteration):
        next(it)
    assert it.epoch == 1 and it.epoch_detail == 1.0


def test_examples_are_read_by_index():
    dataset = [('a', 1), ('b', 2), ('c', 3)]
    it = iterators.SerialIterator(dataset, 2, shuffle=False)
    assert next(it) == [('a', 1), ('b', 2)]
    assert next(it) == [('c', 3), ('a', 1)]


def test_reset_starts_over():
    it = iterators.SerialIterator(list(range(5)), 2, repeat=False, shuffle=False)
    assert len(list(it)) == 3
    it.reset()
    assert (it.epoch, it.current_position, it.is_new_epoch) == (0, 0, False)
    assert it.previous_epoch_detail is None
    assert list(it) == [[0, 1], [2, 3], [4]]


def test_reset_draws_a_new_order():
    np.random.seed(0)
    it = iterators.SerialIterator(list(range(8)), 8)
    first = it._state.order.copy()
    it.reset()
    assert not np.array_equal(first, it._state.order)


def test_order_sampler_is_called_with_order_and_position():
    calls = []

    class Roll(iterators.OrderSampler):
        def __call__(self, current_order, current_position):
            calls.append((current_order.tolist(), current_position))
            return np.roll(current_order, 1)

    it = iterators.SerialIterator(list(range(5)), 3, order_sampler=Roll())
    # Checked against Chainer 7.8.1.
    assert [next(it) for _ in range(4)] == [[4, 0, 1], [2, 3, 3], [4, 0, 1], [2, 2, 3]]
    assert calls == [([0, 1, 2, 3, 4], 0), ([4, 0, 1, 2, 3], 3), ([3, 4, 0, 1, 2], 4)]


def test_order_sampler_of_wrong_length_raises():
    it = iterators.SerialIterator(list(range(3)), 2, order_sampler=lambda order, pos: order[:-1])
    with pytest.raises(ValueError, match='length 1 for an order of length 2'):
        next(it)


def test_empty_dataset():
    with pytest.raises(ValueError, match='empty'):
        next(iterators.SerialIterator([], 2))
    it = iterators.SerialIterator([], 2, repeat=False)
    assert next(it) == [] and it.epoch == 1 and it.epoch_detail == 1.
    with pytest.raises(StopIteration):
        next(it)


def test_argument_errors():
    with pytest.raises(ValueError, match='SerialIterator.*shuffle'):
        iterators.SerialIterator([1], 1, shuffle=True,
                                 order_sampler=iterators.ShuffleOrderSampler())
    with pytest.raises(ValueError, match='batch_size'):
        iterators.SerialIterator([1], 0)
    with pytest.raises(TypeError, match='batch_size'):
        iterators.SerialIterator([1], 1.5)


def test_order_sampler_choice():
    assert isinstance(iterators.SerialIterator([1], 1).order_sampler,
                      iterators.ShuffleOrderSampler)
    assert isinstance(iterators.SerialIterator([1], 1, shuffle=True).order_sampler,
                      iterators.ShuffleOrderSampler)
    assert iterators.SerialIterator([1], 1, shuffle=False).order_sampler is None
    sampler = iterators.ShuffleOrderSampler()
    assert iterators.SerialIterator([1], 1, order_sampler=sampler).order_sampler is sampler


def serialize(it):
    serializer = serializers.DictionarySerializer()
    it.serialize(serializer)
    return serializer.target


def test_serialized_keys_are_chainers():
    it = iterators.SerialIterator(list(range(5)), 2)
    next(it)
    target = serialize(it)
    assert sorted(target) == ['current_position', 'epoch', 'is_new_epoch', 'order',
                              'previous_epoch_detail']
    assert target['previous_epoch_detail'] == 0.
    it = iterators.SerialIterator(list(range(5)), 2, shuffle=False)
    target = serialize(it)
    assert 'order' not in target and target['previous_epoch_detail'] == -1.


@pytest.mark.parametrize('shuffle', [None, False])
def test_resume_from_npz_continues_the_sweep(shuffle):
    np.random.seed(1)
    it = iterators.SerialIterator(list(range(7)), 3, shuffle=shuffle)
    for _ in range(3):
        next(it)
    buffer = io.BytesIO()
    serializers.save_npz(buffer, it)
    resumed = iterators.SerialIterator(list(range(7)), 3, shuffle=shuffle)
    buffer.seek(0)
    serializers.load_npz(buffer, resumed)
    for name in ('epoch', 'current_position', 'is_new_epoch', 'epoch_detail',
                 'previous_epoch_detail'):
        assert getattr(resumed, name) == getattr(it, name)
    assert next(resumed) == next(it)  # within the epoch: same order


def test_old_snapshots_are_read():
    # Chainer 7.8.1 loads these: '_order' instead of 'order', no previous_epoch_detail.
    np.random.seed(1)
    it = iterators.SerialIterator(list(range(7)), 3)
    snapshot = {'current_position': np.array(2), 'epoch': np.array(1),
                'is_new_epoch': np.array(True), '_order': np.array([2, 3, 4, 1, 6, 0, 5])}
    it.serialize(serializers.NpzDeserializer(snapshot))
    assert it.previous_epoch_detail == pytest.approx(0.857142857)
    assert next(it) == [4, 1, 6]
    guesses = []
    for position, epoch in [(0, 0), (1, 0), (1, 2)]:
        it.serialize(serializers.NpzDeserializer(
            {'current_position': np.array(position), 'epoch': np.array(epoch),
             'is_new_epoch': np.array(False), 'order': np.arange(7)}))
        guesses.append(it.previous_epoch_detail)
    assert guesses == [None, 0., pytest.approx(1.714285714)]


def test_iterator_protocol():
    it = iterators.SerialIterator([1, 2], 1, shuffle=False)
    assert iter(it) is it
    assert it.next() == [1]
    with it as same:
        assert same is it
    assert it.repeat is True
