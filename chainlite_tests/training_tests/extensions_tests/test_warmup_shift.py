"""Tests of WarmupShift; the expected sequences were printed by Chainer 7.8.1 for the
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
    assert _run(lambda: extensions.WarmupShift('lr', 0.01, 4, 0.1), 7) == [
        0.01, 0.0325, 0.055, 0.07750000000000001, 0.1, 0.1, 0.1, 0.1]
    assert _run(lambda: extensions.WarmupShift('lr', None, 3, 0.4), 5) == [
        0.1, 0.20000000000000004, 0.3, 0.4000000000000001, 0.4000000000000001,
        0.4000000000000001]


def test_init_defaults_to_the_optimizer_value():
    assert _run(lambda: extensions.WarmupShift('lr', 0.0, 4), 5, lr=1.0) == [
        0.0, 0.25, 0.5, 0.75, 1.0, 1.0]


def test_leaves_the_attribute_alone_after_the_warmup():
    trainer = _trainer(lambda: extensions.WarmupShift('lr', 0.0, 2, 1.0), 4)

    @training.make_extension()
    def halve_after_warmup(trainer):
        if trainer.updater.iteration >= 2:
            trainer.updater.optimizer.lr /= 2

    trainer.extend(halve_after_warmup)
    trainer.run()
    assert trainer.updater.seen == [0.0, 0.5, 0.5, 0.25]


def test_resume_restores_the_value():
    # Chainer sets `warmup_start` again on resume, and after the warm-up it never changes back.
    def make():
        return extensions.WarmupShift('lr', 0.01, 4, 0.1)
    for k in (2, 4, 5):
        assert _resumed(make, 7, k) == _run(make, 7)


def test_serialized_keys_and_errors():
    assert _keys(extensions.WarmupShift('lr', 0.01, 4, 0.1)) == ['_t']
    with pytest.raises(ValueError, match='WarmupShift: warmup_iter'):
        extensions.WarmupShift('lr', 0.01, 0, 0.1)


def test_call_before_initialize_with_a_default_from_the_optimizer_is_explained():
    optimizer = optimizers.SGD(lr=1.0)
    shift = extensions.WarmupShift('lr', None, 4, optimizer=optimizer)
    with pytest.raises(RuntimeError, match='WarmupShift: .*initialize'):
        shift(trainer=None)
    shift.initialize(trainer=None)
    shift(trainer=None)
    assert optimizer.lr == 1.0
