"""Tests of ExponentialShift; the expected sequences were printed by Chainer 7.8.1 for the
same schedules (the value each update ran with, then the final value)."""
import types

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
    assert _run(lambda: extensions.ExponentialShift('lr', 0.5), 6) == [
        0.1, 0.05, 0.025, 0.0125, 0.00625, 0.003125, 0.0015625]
    assert _run(lambda: extensions.ExponentialShift('lr', 0.5, init=2.0, target=0.3), 6) == [
        2.0, 1.0, 0.5, 0.3, 0.3, 0.3, 0.3]
    assert _run(lambda: extensions.ExponentialShift('lr', 0.5, init=-1.0, target=-0.2), 6) == [
        -1.0, -0.5, -0.25, -0.2, -0.2, -0.2, -0.2]
    assert _run(lambda: extensions.ExponentialShift('momentum', 1.05, target=0.99), 6,
                attr='momentum') == [0.9, 0.9450000000000001, 0.99, 0.99, 0.99, 0.99, 0.99]


def test_integer_schedule_stays_integer():
    values = _run(lambda: extensions.ExponentialShift('lr', 2, init=1, target=10), 6)
    assert values == [1, 2, 4, 8, 10, 10, 10]
    assert all(type(v) is int for v in values)


def test_resume_continues_the_schedule():
    def make():
        return extensions.ExponentialShift('lr', 0.5, target=0.01)
    assert _resumed(make, 8, 3) == _run(make, 8)
    assert _resumed(make, 8, 3)[-1] == 0.01


def test_explicit_optimizer():
    other = optimizers.SGD(lr=1.0)
    values = _run(lambda: extensions.ExponentialShift('lr', 0.5, optimizer=other), 3)
    assert values == [0.1] * 4  # the main optimizer is left alone
    assert other.lr == 0.125


def test_serialized_keys_are_chainers():
    ext = extensions.ExponentialShift('lr', 0.5)
    assert _keys(ext) == ['_last_value', '_t']
    ext.initialize(types.SimpleNamespace(updater=_Recorder(optimizers.SGD(lr=0.5), 'lr')))
    s = serializers.DictionarySerializer()
    ext.serialize(s)
    assert s.target['_last_value'] == 0.5 and s.target['_t'] == 0
    loaded = extensions.ExponentialShift('lr', 0.5)
    serializers.NpzDeserializer(s.target).load(loaded)
    assert (loaded._t, loaded._last_value) == (0, 0.5)
    assert type(loaded._last_value) is float


def test_defaults_and_errors():
    ext = extensions.ExponentialShift('lr', 0.5)
    assert ext.trigger == (1, 'iteration')
    assert ext.priority == training.PRIORITY_READER
    assert ext.default_name == 'ExponentialShift'
    with pytest.raises(ValueError, match='ExponentialShift: rate'):
        extensions.ExponentialShift('lr', -0.5)
    with pytest.raises(ValueError, match='ExponentialShift: target'):
        extensions.ExponentialShift('lr', 0.5, target=0)
