"""Tests of PolynomialShift; the expected sequences were printed by Chainer 7.8.1 for the
same schedules (the value each update ran with, then the final value)."""
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
    assert _run(lambda: extensions.PolynomialShift('lr', 0.9, 5), 7) == [
        0.1, 0.08180521460508584, 0.06314458674893553, 0.043838329055408694,
        0.023492378861760376, 0.0, 0.0, 0.0]
    assert _run(lambda: extensions.PolynomialShift('lr', 2, 4, init=1.0), 5) == [
        1.0, 0.5625, 0.25, 0.0625, 0.0, 0.0]
    assert _run(lambda: extensions.PolynomialShift('lr', 0.5, 4, init=1.0, target=0.6), 3) == [
        1.0, 0.8660254037844386, 0.7071067811865476, 0.6]


def test_target_holds_after_the_decay_reaches_zero():
    # Chainer divides by the zero value here (ZeroDivisionError at the 4th call).
    assert _run(lambda: extensions.PolynomialShift('lr', 0.5, 4, init=1.0, target=0.6), 6) == [
        1.0, 0.8660254037844386, 0.7071067811865476, 0.6, 0.6, 0.6, 0.6]


def test_resume_continues_the_schedule():
    def make():
        return extensions.PolynomialShift('lr', 0.9, 5)
    for k in (2, 6):
        assert _resumed(make, 7, k) == _run(make, 7)


def test_serialized_keys():
    assert _keys(extensions.PolynomialShift('lr', 0.9, 5)) == ['_last_value', '_t']
