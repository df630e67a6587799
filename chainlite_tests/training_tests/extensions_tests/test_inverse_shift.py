"""Tests of InverseShift; the expected sequences were printed by Chainer 7.8.1 for the
same schedules (the value each update ran with, then the final value)."""
import pytest

import chainlite
from chainlite import optimizers
from chainlite import serializers
from chainlite import training
from chainlite.training import extensions


class _Recorder(training.Updater):
    """Records the optimizer attribute each update runs with."""

    def __init__(self, optimizer, attr):
        self.optimizer, self.attr, self.iteration, self.seen = optimizer, attr, 0, []

    epoch_detail = property(lambda self: float(self.iteration))

    def get_optimizer(self, name):
        return self.optimizer

    def get_all_optimizers(self):
        return {'main': self.optimizer}

    def update(self):
        self.seen.append(getattr(self.optimizer, self.attr))
        self.iteration += 1

    def finalize(self):
        pass

    def serialize(self, serializer):
        self.iteration = int(serializer('iteration', self.iteration))


def _trainer(make_ext, n, attr='lr', lr=0.1):
    optimizer = optimizers.MomentumSGD(lr=lr)
    optimizer.setup(chainlite.links.Linear(1, 1))
    trainer = training.Trainer(_Recorder(optimizer, attr), (n, 'iteration'), out='.')
    trainer.extend(make_ext(), name='shift')
    return trainer


def _run(make_ext, n, attr='lr', lr=0.1):
    """The value of each of n updates, then the final value."""
    trainer = _trainer(make_ext, n, attr, lr)
    trainer.run()
    return trainer.updater.seen + [getattr(trainer.updater.optimizer, attr)]


def _resumed(make_ext, n, k, attr='lr', lr=0.1):
    """Like _run, stopping after k updates and resuming a fresh trainer from a snapshot."""
    first = _trainer(make_ext, k, attr, lr)
    first.run()
    snapshot = serializers.DictionarySerializer()
    snapshot.save(first)
    second = _trainer(make_ext, n, attr, lr)
    serializers.NpzDeserializer(snapshot.target).load(second)
    second.run()
    return first.updater.seen + second.updater.seen + [
        getattr(second.updater.optimizer, attr)]


def _keys(ext):
    s = serializers.DictionarySerializer()
    ext.serialize(s)
    return sorted(s.target)


def test_values_match_chainer():
    assert _run(lambda: extensions.InverseShift('lr', 0.1, 0.75), 5) == [
        0.1, 0.09310124446222229, 0.08721959494934213, 0.08213769018249545,
        0.07769695042409124, 0.07377879464668811]
    assert _run(lambda: extensions.InverseShift('lr', 1.0, 1.0, init=1.0, target=0.3), 5) == [
        1.0, 0.5, 0.3333333333333333, 0.3, 0.3, 0.3]
    assert _run(lambda: extensions.InverseShift('lr', 0.5, -2, init=1.0, target=3.0), 5) == [
        1.0, 2.25, 3.0, 3.0, 3.0, 3.0]


def test_resume_continues_the_schedule():
    def make():
        return extensions.InverseShift('lr', 0.1, 0.75)
    assert _resumed(make, 6, 4) == _run(make, 6)


def test_serialized_keys_and_errors():
    assert _keys(extensions.InverseShift('lr', 0.1, 0.75)) == ['_last_value', '_t']
    with pytest.raises(ValueError, match='InverseShift: gamma'):
        extensions.InverseShift('lr', -0.1, 0.75)
    with pytest.raises(ValueError, match='InverseShift: target'):
        extensions.InverseShift('lr', 0.1, 0.75, target=0)
