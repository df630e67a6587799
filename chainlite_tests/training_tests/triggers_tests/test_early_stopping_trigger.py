from types import SimpleNamespace

import pytest

from chainlite import serializers
from chainlite.training import triggers

LOSSES = [5., 4., 4.5, 4.2, 4.1, 3., 3.2, 3.3, 3.1, 3.05, 2.9, 2.8] + [9.] * 20


# Literals from Chainer 7.8.1 on the same stand-in updater (size 4, batch 2).
def test_stops_when_the_epoch_mean_stops_improving(fake):
    trigger = triggers.EarlyStoppingTrigger(monitor='v', patience=2, max_trigger=(20, 'epoch'))
    fired = fake.fired_at(trigger, fake.make_trainer(4, 2), 30, LOSSES)
    assert fired[0] == 16
    assert trigger.best == pytest.approx(2.85)
    assert trigger.count == 9


def test_every_iteration():
    # Chainer 7.8.1, in a real trainer: stops at iteration 5 with best 4.0.
    trigger = triggers.EarlyStoppingTrigger(check_trigger=(1, 'iteration'), monitor='v',
                                            patience=3, max_trigger=(30, 'iteration'))
    trainer = SimpleNamespace(updater=SimpleNamespace(iteration=0, epoch_detail=0., epoch=0))
    for i, loss in enumerate(LOSSES, start=1):
        trainer.updater.iteration = i
        trainer.observation = {'v': loss}
        if trigger(trainer):
            break
    assert (i, trigger.best, trigger.count) == (5, 4.0, 3)


def test_accuracy_is_maximized_and_max_trigger_stops(fake):
    trigger = triggers.EarlyStoppingTrigger(monitor='main/accuracy', patience=1,
                                            max_trigger=(3, 'epoch'))
    accuracies = [0.1, 0.2, 0.3, 0.4, 0.1, 0.1, 0.5, 0.5]
    fired = fake.fired_at(trigger, fake.make_trainer(4, 2), 8, accuracies, key='main/accuracy')
    assert fired == [6, 7]
    assert (trigger.best, trigger.count) == (0.5, 0)


def test_mode_max(fake):
    values = [5., 1., 4., 4., 3., 3.5, 2., 2.5, 9., 0.]
    trigger = triggers.EarlyStoppingTrigger(monitor='v', mode='max', patience=10,
                                            max_trigger=(3, 'epoch'))
    assert fake.fired_at(trigger, fake.make_trainer(4, 2), 8, values) == [6]
    assert (trigger.best, trigger.count) == (4.0, 2)
    assert trigger.get_training_length() == (3, 'epoch')


def test_missing_monitor_warns(fake):
    trigger = triggers.EarlyStoppingTrigger(check_trigger=(1, 'iteration'))
    with pytest.warns(UserWarning, match='main/loss is not in the observation'):
        assert fake.fired_at(trigger, fake.make_trainer(), 1, [1.0], key='loss') == []


def test_patients_alias():
    assert triggers.EarlyStoppingTrigger(patients=5).patience == 5
    assert triggers.EarlyStoppingTrigger().patience == 3
    with pytest.raises(TypeError, match='patients'):
        triggers.EarlyStoppingTrigger(patience=2, patients=5)
    with pytest.raises(TypeError, match='patiance'):
        triggers.EarlyStoppingTrigger(patiance=2)


def test_verbose(fake, capsys):
    trigger = triggers.EarlyStoppingTrigger(check_trigger=(1, 'iteration'), monitor='v',
                                            patience=1, verbose=True)
    assert 'operator is less' in capsys.readouterr().out
    assert fake.fired_at(trigger, fake.make_trainer(4, 2), 2, [1., 2.]) == [2]
    assert 'Epoch 1: early stopping' in capsys.readouterr().out


def test_resume_keeps_the_count(fake):
    trainer = fake.make_trainer(4, 2)
    trigger = triggers.EarlyStoppingTrigger(monitor='v', patience=2, max_trigger=(20, 'epoch'))
    assert fake.fired_at(trigger, trainer, 9, LOSSES) == []
    snapshot = serializers.npz.serialize(trigger)
    resumed = triggers.EarlyStoppingTrigger(monitor='v', patience=2, max_trigger=(20, 'epoch'))
    serializers.NpzDeserializer(snapshot).load(resumed)
    assert (resumed.best, resumed.count) == (trigger.best, trigger.count)
    assert fake.fired_at(resumed, trainer, 21, LOSSES[9:])[0] == 16


def test_chainer_snapshot_without_state_warns(fake):
    trigger = triggers.EarlyStoppingTrigger()
    with pytest.warns(UserWarning, match='patience count restarts'):
        serializers.NpzDeserializer({}).load(trigger)
    assert (trigger.count, trigger.best) == (0, float('inf'))


def test_training_length_of_a_plain_callable_max_trigger_names_it():
    trigger = triggers.EarlyStoppingTrigger(max_trigger=lambda trainer: False)
    assert triggers.EarlyStoppingTrigger().get_training_length() == (100, 'epoch')
    with pytest.raises(AttributeError, match='EarlyStoppingTrigger.get_training_length'):
        trigger.get_training_length()
