"""Resuming from a snapshot continues exactly as an uninterrupted run would.

N iterations straight, against N/2 iterations, a snapshot, and a new Trainer (new model, new
optimizer, new iterators) that loads it and runs to N: identical logs and parameters, with a
shuffling iterator, Adam's state and a learning-rate schedule all in the snapshot.
"""
import os

import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import training
from chainlite.training import extensions

N_EPOCHS = 4


class MLP(chainlite.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, 32)
            self.l2 = L.Linear(None, 10)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


def _trainer(out, stop):
    numpy.random.seed(0)          # the same initial weights and shuffles in every run
    train, test = chainlite.datasets.get_digits()
    train = chainlite.datasets.SubDataset(train, 0, 320)
    model = L.Classifier(MLP())
    optimizer = chainlite.optimizers.Adam(alpha=0.01)
    optimizer.setup(model)
    train_iter = chainlite.iterators.SerialIterator(train, 32)
    test_iter = chainlite.iterators.SerialIterator(test, 100, repeat=False, shuffle=False)
    updater = training.updaters.StandardUpdater(train_iter, optimizer)
    trainer = training.Trainer(updater, stop, out=str(out))
    trainer.extend(extensions.Evaluator(test_iter, model))
    trainer.extend(extensions.ExponentialShift('alpha', 0.7), trigger=(1, 'epoch'))
    trainer.extend(extensions.observe_value(
        'alpha', lambda t: t.updater.get_optimizer('main').alpha), trigger=(1, 'iteration'))
    trainer.extend(extensions.LogReport(trigger=(1, 'epoch')))
    return trainer, model


def _log_without_times(trainer):
    return [{k: v for k, v in entry.items() if k != 'elapsed_time'}
            for entry in trainer.get_extension('LogReport').log]


def test_resumed_run_matches_an_uninterrupted_one(tmp_path):
    straight, straight_model = _trainer(tmp_path / 'straight', (N_EPOCHS, 'epoch'))
    straight.run()

    half, _ = _trainer(tmp_path / 'half', (N_EPOCHS // 2, 'epoch'))
    half.extend(extensions.snapshot(filename='snapshot'), trigger=(N_EPOCHS // 2, 'epoch'))
    half.run()
    snapshot = os.path.join(str(tmp_path / 'half'), 'snapshot')

    # A new process would start from scratch: here, different weights and a spent RNG.
    numpy.random.seed(123)
    resumed, resumed_model = _trainer(tmp_path / 'resumed', (N_EPOCHS, 'epoch'))
    numpy.random.seed(123)
    chainlite.serializers.load_npz(snapshot, resumed)
    assert resumed.updater.iteration == straight.updater.iteration // 2
    resumed.run()

    assert resumed.updater.iteration == straight.updater.iteration
    straight_log, resumed_log = _log_without_times(straight), _log_without_times(resumed)
    assert len(straight_log) == N_EPOCHS and resumed_log == straight_log
    # observed at the last iteration, before that epoch's shift
    assert straight_log[-1]['alpha'] == pytest.approx(0.01 * 0.7 ** (N_EPOCHS - 1))
    for (path, p), (path2, q) in zip(straight_model.namedparams(),
                                     resumed_model.namedparams()):
        assert path == path2
        numpy.testing.assert_array_equal(p.array, q.array)


@pytest.mark.parametrize('strict', [True, False])
def test_a_snapshot_without_the_random_state_leaves_it_alone(tmp_path, strict):
    # Chainer's snapshots have no '_numpy_random_*' keys: loading one must not touch the RNG.
    from chainlite.training import trainer as trainer_module
    path = str(tmp_path / 'chainer_like.npz')
    numpy.savez(path, other=numpy.zeros(1))
    numpy.random.seed(5)
    expected = numpy.random.get_state()[1].copy()
    with numpy.load(path) as npz:
        trainer_module._serialize_numpy_random_state(
            chainlite.serializers.NpzDeserializer(npz, strict=strict))
    numpy.testing.assert_array_equal(numpy.random.get_state()[1], expected)


def test_autoloaded_snapshot_restores_the_learning_rate_schedule(tmp_path):
    # The snapshot must be loaded before ExponentialShift initializes, or the first resumed
    # epoch would run at the initial rate.
    import chainlite.optimizers as O

    def build(epochs):
        numpy.random.seed(0)
        train, _ = chainlite.datasets.get_digits()
        model = L.Classifier(L.Linear(None, 10))
        opt = O.SGD(lr=0.1).setup(model)
        updater = training.updaters.StandardUpdater(
            chainlite.iterators.SerialIterator(chainlite.datasets.SubDataset(train, 0, 64), 32),
            opt)
        trainer = training.Trainer(updater, (epochs, 'epoch'), out=str(tmp_path))
        trainer.extend(extensions.ExponentialShift('lr', 0.5), trigger=(1, 'epoch'))
        trainer.extend(extensions.snapshot(autoload=True), trigger=(1, 'epoch'))
        return trainer, opt

    first, opt = build(3)
    first.run()
    assert opt.lr == pytest.approx(0.1 * 0.5 ** 3)
    resumed, opt2 = build(4)
    rates = []
    update = opt2.update

    def recording_update(*args, **kwargs):
        rates.append(opt2.lr)
        return update(*args, **kwargs)

    opt2.update = recording_update
    resumed.run()
    assert rates and all(r == pytest.approx(0.1 * 0.5 ** 3) for r in rates)
