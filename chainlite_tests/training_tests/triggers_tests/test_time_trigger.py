from types import SimpleNamespace

from chainlite import serializers
from chainlite.training import triggers


def test_fires_once_per_period_and_catches_up_one_period_per_call():
    # Literals from Chainer 7.8.1.
    trigger = triggers.TimeTrigger(1.0)
    times = [0.5, 1.0, 1.01, 1.5, 5.0, 5.1, 5.2, 5.3, 5.4]
    fired = [trigger(SimpleNamespace(elapsed_time=t)) for t in times]
    assert fired == [False, False, True, False, True, True, True, True, False]
    snapshot = serializers.npz.serialize(trigger)
    assert {k: v.tolist() for k, v in snapshot.items()} == {'next_time': 6.0}

    resumed = triggers.TimeTrigger(1.0)
    serializers.NpzDeserializer(snapshot).load(resumed)
    assert not resumed(SimpleNamespace(elapsed_time=5.9))
    assert resumed(SimpleNamespace(elapsed_time=6.1))
