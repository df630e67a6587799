"""Tests of StepShift; the expected sequences were printed by Chainer 7.8.1 for the
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
    assert _run(lambda: extensions.StepShift('lr', 0.5, 3), 8) == [
        0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.025, 0.025, 0.025]
    assert _run(lambda: extensions.StepShift('lr', 0.5, 2, init=1.0, target=0.2), 8) == [
        1.0, 1.0, 0.5, 0.5, 0.25, 0.25, 0.2, 0.2, 0.2]
    assert _run(lambda: extensions.StepShift('lr', 3, 2, init=0.01, target=0.5), 8) == [
        0.01, 0.01, 0.03, 0.03, 0.09, 0.09, 0.27, 0.27, 0.5]


def test_integer_arguments_give_floats():
    values = _run(lambda: extensions.StepShift('lr', 2, 1, init=1), 3)
    assert values == [1, 2.0, 4.0, 8.0]
    assert all(type(v) is float for v in values[1:])


def test_resume_continues_the_schedule():
    def make():
        return extensions.StepShift('lr', 0.5, 2, target=0.02)
    for k in (2, 3):
        assert _resumed(make, 9, k) == _run(make, 9)


def test_serialized_keys_and_errors():
    assert _keys(extensions.StepShift('lr', 0.5, 3)) == ['_last_value', '_t']
    with pytest.raises(ValueError, match='StepShift: step'):
        extensions.StepShift('lr', 0.5, 0)
    with pytest.raises(ValueError, match='StepShift: target'):
        extensions.StepShift('lr', 0.5, 2, target=0.0)
