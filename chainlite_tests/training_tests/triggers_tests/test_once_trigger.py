from chainlite import serializers
from chainlite.training import triggers


def test_fires_once(fake):
    trigger = triggers.OnceTrigger()
    assert not trigger.finished
    assert fake.fired_at(trigger, fake.make_trainer(), 3) == [1]
    assert trigger.finished


def test_resume(fake):
    # Chainer 7.8.1: only _flag_first is saved; call_on_resume fires once more after loading.
    trainer = fake.make_trainer()
    trigger = triggers.OnceTrigger(call_on_resume=True)
    assert fake.fired_at(trigger, trainer, 3) == [1]
    snapshot = serializers.npz.serialize(trigger)
    assert {k: v.tolist() for k, v in snapshot.items()} == {'_flag_first': False}

    on_resume = triggers.OnceTrigger(call_on_resume=True)
    serializers.NpzDeserializer(snapshot).load(on_resume)
    assert not on_resume.finished
    assert fake.fired_at(on_resume, trainer, 3) == [4]

    not_on_resume = triggers.OnceTrigger()
    serializers.NpzDeserializer(snapshot).load(not_on_resume)
    assert not_on_resume.finished
    assert fake.fired_at(not_on_resume, trainer, 2) == []
