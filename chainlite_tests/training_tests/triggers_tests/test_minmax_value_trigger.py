import pytest

from chainlite import serializers
from chainlite.training import triggers

VALUES = [5., 1., 4., 4., 3., 3.5, 2., 2.5, 9., 0.]


# Means per epoch (size 4, batch 2): 3, 4, 3.25, 2.25, 4.5. Literals from Chainer 7.8.1.
@pytest.mark.parametrize('cls, expected', [
    (triggers.MinValueTrigger, [2, 8]),
    (triggers.MaxValueTrigger, [2, 4, 10]),
])
def test_compares_means_over_each_epoch(fake, cls, expected):
    trigger = cls('v')
    assert fake.fired_at(trigger, fake.make_trainer(4, 2), 10, VALUES) == expected


def test_best_value_trigger_with_custom_compare(fake):
    # "Better" = closer to 3.
    trigger = triggers.BestValueTrigger(
        'v', lambda best, new: abs(new - 3) < abs(best - 3), trigger=(1, 'iteration'))
    assert fake.fired_at(trigger, fake.make_trainer(), 5, VALUES) == [1, 3, 5]


def test_resume(fake):
    trainer = fake.make_trainer(4, 2)
    trigger = triggers.MinValueTrigger('v')
    assert fake.fired_at(trigger, trainer, 5, VALUES) == [2]
    snapshot = serializers.npz.serialize(trigger)
    assert sorted(snapshot) == [
        'best_value', 'interval_trigger/previous_epoch_detail',
        'interval_trigger/previous_iteration', 'summary/_names', 'summary/_summaries/0/_n',
        'summary/_summaries/0/_x', 'summary/_summaries/0/_x2']
    resumed = triggers.MinValueTrigger('v')
    serializers.NpzDeserializer(snapshot).load(resumed)
    # The half-epoch summary (value 3.) was saved too: the epoch mean is 3.25, not 3.5.
    assert fake.fired_at(resumed, trainer, 5, VALUES[5:]) == [8]


def test_missing_value_raises(fake):
    trigger = triggers.MaxValueTrigger('validation/main/accuracy', trigger=(1, 'iteration'))
    with pytest.raises(KeyError, match='validation/main/accuracy'):
        fake.fired_at(trigger, fake.make_trainer(), 1, [1.0], key='main/accuracy')


def test_a_plain_callable_interval_trigger_serializes(fake):
    # A trigger given as a function has no state to save (this raised AttributeError).
    trigger = triggers.MinValueTrigger('v', trigger=lambda trainer: True)
    assert fake.fired_at(trigger, fake.make_trainer(), 3, VALUES) == [1, 2]
    snapshot = serializers.npz.serialize(trigger)
    assert 'best_value' in snapshot
    assert not any(key.startswith('interval_trigger') for key in snapshot)
