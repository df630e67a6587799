"""Tests of LinearShift; the expected sequences were printed by Chainer 7.8.1 for the
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
    assert _run(lambda: extensions.LinearShift('lr', (0.1, 0.5), (2, 6)), 8) == [
        0.1, 0.1, 0.1, 0.2, 0.30000000000000004, 0.4, 0.5, 0.5, 0.5]
    values = _run(lambda: extensions.LinearShift('lr', (1, 4), (0, 3)), 5)
    assert values == [1, 2.0, 3.0, 4, 4, 4]
    assert [type(v) for v in values] == [int, float, float, int, int, int]


def test_does_not_read_the_attribute():
    opt = optimizers.SGD()
    ext = extensions.LinearShift('not_yet_there', (1.0, 2.0), (0, 2), optimizer=opt)
    ext.initialize(None)
    ext(None)
    assert opt.not_yet_there == 1.5


def test_resume_continues_the_schedule():
    def make():
        return extensions.LinearShift('lr', (0.1, 0.5), (2, 6))
    for k in (1, 3, 7):
        assert _resumed(make, 8, k) == _run(make, 8)


def test_serialized_keys_and_errors():
    assert _keys(extensions.LinearShift('lr', (0.1, 0.5), (2, 6))) == ['_last_value', '_t']
    with pytest.raises(ValueError, match='LinearShift: value_range and time_range'):
        extensions.LinearShift('lr', (0.1, 0.2, 0.3), (2, 6))
