import pytest

from chainlite import serializers
from chainlite.training import triggers


# Literals recorded with Chainer 7.8.1 on the same stand-in updater (size 10, batch 3).
@pytest.mark.parametrize('points, unit, iterations, expected', [
    ([0.5, 1.2, 2.5], 'epoch', 10, [2, 4, 9]),
    ([0.5, 1.2, 2], 'epoch', 10, [2, 4, 7]),
    ([1, 4, 7], 'iteration', 10, [1, 4, 7]),
    (3, 'iteration', 5, [3]),
    ((2, 5), 'iteration', 6, [2, 5]),
])
def test_fires_where_chainer_does(fake, points, unit, iterations, expected):
    trigger = triggers.ManualScheduleTrigger(points, unit)
    assert fake.fired_at(trigger, fake.make_trainer(10, 3), iterations) == expected
    assert trigger.finished


def test_finished_only_after_the_last_point(fake):
    trainer = fake.make_trainer(10, 3)
    trigger = triggers.ManualScheduleTrigger([2, 5], 'iteration')
    fake.fired_at(trigger, trainer, 4)
    assert not trigger.finished
    fake.fired_at(trigger, trainer, 1)
    assert trigger.finished


def test_resume(fake):
    trainer = fake.make_trainer(10, 3)
    trigger = triggers.ManualScheduleTrigger([0.5, 1.2, 2.5], 'epoch')
    assert fake.fired_at(trigger, trainer, 7) == [2, 4]
    snapshot = serializers.npz.serialize(trigger)
    assert sorted(snapshot) == ['finished', 'previous_epoch_detail', 'previous_iteration']
    resumed = triggers.ManualScheduleTrigger([0.5, 1.2, 2.5], 'epoch')
    serializers.NpzDeserializer(snapshot).load(resumed)
    assert fake.fired_at(resumed, trainer, 3) == [9]


@pytest.mark.parametrize('points, first, then, fired_then', [
    ([1, 4], [1, 4], 1, []),     # past the last point: finished at the next call
    ([1, 8], [1], 4, [8]),
])
def test_resume_without_finished_flag(fake, points, first, then, fired_then):
    # Chainer 7.8.1: the flag is reset (so extensions get initialized) and worked out again.
    trainer = fake.make_trainer(10, 3)
    trigger = triggers.ManualScheduleTrigger(points, 'iteration')
    assert fake.fired_at(trigger, trainer, 5) == first
    snapshot = serializers.npz.serialize(trigger)
    del snapshot['finished']
    resumed = triggers.ManualScheduleTrigger(points, 'iteration')
    with pytest.warns(UserWarning, match='finished'):
        serializers.NpzDeserializer(snapshot).load(resumed)
    assert not resumed.finished
    assert fake.fired_at(resumed, trainer, then) == fired_then
    assert resumed.finished


def test_invalid_unit():
    with pytest.raises(ValueError, match='ManualScheduleTrigger'):
        triggers.ManualScheduleTrigger([1], 'iterations')
