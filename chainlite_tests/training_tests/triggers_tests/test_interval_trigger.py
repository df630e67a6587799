import pytest

from chainlite import serializers
from chainlite.training import triggers


# (data set size, batch size, period, unit, iterations) -> iterations fired at, recorded with
# Chainer 7.8.1 (a Trainer, a StandardUpdater and an unshuffled SerialIterator).
CHAINER_CASES = [
    (10, 3, 0.5, 'epoch', 10, [2, 4, 5, 7, 9, 10]),
    (10, 3, 1, 'epoch', 10, [4, 7, 10]),
    (10, 4, 0.3, 'epoch', 5, [1, 2, 3, 4, 5]),
    (10, 3, 1.5, 'epoch', 14, [5, 10]),
    (7, 2, 3, 'iteration', 10, [3, 6, 9]),
]


@pytest.mark.parametrize('size, batch_size, period, unit, iterations, expected', CHAINER_CASES)
def test_fires_where_chainer_does(fake, size, batch_size, period, unit, iterations, expected):
    trainer = fake.make_trainer(size, batch_size)
    trigger = triggers.IntervalTrigger(period, unit)
    assert fake.fired_at(trigger, trainer, iterations) == expected


def test_count_is_epoch_detail_over_period(fake):
    trainer = fake.make_trainer(10, 5)
    trigger = triggers.IntervalTrigger(0.5, 'epoch')
    fake.fired_at(trigger, trainer, 3)  # epoch_detail 1.5
    assert trigger.count == 3


def test_does_not_fire_before_the_first_update(fake):
    # A stop trigger is first called at iteration 0.
    trainer = fake.make_trainer()
    assert not triggers.IntervalTrigger(1, 'iteration')(trainer)
    assert not triggers.IntervalTrigger(0.5, 'epoch')(trainer)


@pytest.mark.parametrize('period, unit, first, then', [
    (0.5, 'epoch', [2, 4, 5, 7], [9, 10]),
    (3, 'iteration', [3, 6], [9]),
])
def test_resume_fires_where_an_uninterrupted_run_does(fake, period, unit, first, then):
    # Chainer 7.8.1: 7 iterations, snapshot, resume for 3 more (size 10, batch 3).
    trainer = fake.make_trainer(10, 3)
    trigger = triggers.IntervalTrigger(period, unit)
    assert fake.fired_at(trigger, trainer, 7) == first
    snapshot = serializers.npz.serialize(trigger)
    assert sorted(snapshot) == ['previous_epoch_detail', 'previous_iteration']

    resumed = triggers.IntervalTrigger(period, unit)
    serializers.NpzDeserializer(snapshot).load(resumed)
    assert fake.fired_at(resumed, trainer, 3) == then


def test_resume_from_a_snapshot_without_state_warns_and_guesses(fake):
    trainer = fake.make_trainer(10, 3)
    fake.fired_at(triggers.IntervalTrigger(0.5, 'epoch'), trainer, 7)
    resumed = triggers.IntervalTrigger(0.5, 'epoch')
    with pytest.warns(UserWarning, match='previous'):
        serializers.NpzDeserializer({}).load(resumed)
    # Guessed from updater.previous_epoch_detail: right when called at every iteration.
    assert fake.fired_at(resumed, trainer, 3) == [9, 10]

    by_iteration = triggers.IntervalTrigger(3, 'iteration')
    with pytest.warns(UserWarning):
        serializers.NpzDeserializer({}).load(by_iteration)
    assert fake.fired_at(by_iteration, trainer, 3) == [12]


def test_invalid_unit():
    with pytest.raises(ValueError, match="IntervalTrigger.*'epoch' or 'iteration'"):
        triggers.IntervalTrigger(1, 'epochs')


def test_training_length_and_str():
    trigger = triggers.IntervalTrigger(20, 'epoch')
    assert trigger.get_training_length() == (20, 'epoch')
    assert str(trigger) == "IntervalTrigger(20, 'epoch')"


@pytest.mark.parametrize('make', [lambda: triggers.IntervalTrigger(1, 'epoch'),
                                  lambda: triggers.ManualScheduleTrigger([1, 2], 'epoch')])
def test_guess_without_a_previous_epoch_detail_does_not_fire(fake, make):
    # A snapshot without the trigger's state, called before the updater knows its previous
    # epoch_detail (None): nothing is known to have been crossed (it raised TypeError).
    trainer = fake.make_trainer(4, 2)
    trainer.updater.epoch = 1
    resumed = make()
    with pytest.warns(UserWarning):
        serializers.NpzDeserializer({}).load(resumed)
    assert trainer.updater.previous_epoch_detail is None
    assert not resumed(trainer)
    assert fake.fired_at(resumed, trainer, 2) == [2]
