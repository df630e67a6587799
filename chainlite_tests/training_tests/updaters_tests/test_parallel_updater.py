"""ParallelUpdater: the minibatch dealt among model copies, gradients summed into the main
model, one update, parameters copied back (Chainer's semantics, on CPU devices)."""
import copy

import numpy as np
import pytest

import chainlite
import chainlite.functions as F
from chainlite import iterators, links as L, optimizers, training
from chainlite.training import updaters


def _data(n=8):
    rng = np.random.default_rng(0)
    return [(rng.normal(size=3).astype(np.float32), np.int32(i % 2)) for i in range(n)]


def _model(seed=0):
    np.random.seed(seed)
    return L.Classifier(L.Linear(3, 2))


def _expected_step(model, batch, n_models, lr):
    # Chainer's rule: sum over models of the gradient of the mean loss of its share.
    ref = copy.deepcopy(model)
    ref.cleargrads()
    for i in range(n_models):
        share = batch[i::n_models]
        x = np.stack([b[0] for b in share])
        t = np.array([b[1] for b in share])
        ref(x, t).backward()
    return {name: p.array - lr * p.grad for name, p in ref.namedparams()}


@pytest.mark.parametrize('devices', [{'main': -1, 'second': '@numpy'},
                                     {'main': '@numpy', 'b': -1, 'c': 'cpu'}])
def test_update_matches_chainer_rule(devices):
    data = _data()
    model = _model()
    expected = _expected_step(model, data[:4], len(devices), 0.1)
    opt = optimizers.SGD(lr=0.1).setup(model)
    upd = updaters.ParallelUpdater(iterators.SerialIterator(data, 4, shuffle=False), opt,
                                   devices=devices)
    assert set(upd._models) == set(devices)
    assert upd._models['main'] is model
    copies = [m for k, m in upd._models.items() if k != 'main']
    assert all(m is not model for m in copies)
    upd.update()
    assert upd.iteration == 1
    for name, p in model.namedparams():
        np.testing.assert_allclose(p.array, expected[name], rtol=1e-6, atol=1e-7)
    # The copies follow the main model.
    for m in copies:
        for (name, p), (_, q) in zip(model.namedparams(), m.namedparams()):
            np.testing.assert_array_equal(p.array, q.array)


def test_explicit_models_and_loss_func():
    data = _data()
    model, other = _model(), _model(1)
    opt = optimizers.SGD(lr=0.1).setup(model)
    calls = []

    def loss_func(x, t):
        calls.append(len(x))
        return F.sum(x) * 0 + F.mean_squared_error(x, x + 1)

    upd = updaters.ParallelUpdater(iterators.SerialIterator(data, 4, shuffle=False), opt,
                                   models={'main': model, 'other': other},
                                   devices={'main': -1, 'other': -1}, loss_func=loss_func)
    upd.update()
    assert calls == [2, 2]


def test_loss_scale_gives_the_same_update():
    data = _data()
    results = []
    for scale in (None, 128.0):
        model = _model()
        opt = optimizers.SGD(lr=0.1).setup(model)
        upd = updaters.ParallelUpdater(iterators.SerialIterator(data, 4, shuffle=False), opt,
                                       devices={'main': -1, 'b': -1}, loss_scale=scale)
        upd.update()
        results.append(model.predictor.W.array.copy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-5)


def test_errors():
    model = _model()
    opt = optimizers.SGD().setup(model)
    it = iterators.SerialIterator(_data(), 4)
    with pytest.raises(ValueError, match='either models or devices'):
        updaters.ParallelUpdater(it, opt)
    with pytest.raises(KeyError, match="'main' key"):
        updaters.ParallelUpdater(it, opt, devices={'a': -1, 'b': -1})
    with pytest.raises(ValueError, match="models\\['main'\\]"):
        updaters.ParallelUpdater(it, opt, models={'main': _model(1)}, devices={'main': -1})
    with pytest.raises(ValueError, match='same keys'):
        updaters.ParallelUpdater(it, opt, models={'main': model, 'b': _model(1)},
                                 devices={'main': -1})


def test_trainer_reports_every_model_and_new_epochs(tmp_path):
    model = _model()
    opt = optimizers.SGD(lr=0.05).setup(model)
    upd = updaters.ParallelUpdater(iterators.SerialIterator(_data(), 4), opt,
                                   devices={'main': -1, 'sub': -1})
    trainer = training.Trainer(upd, (2, 'epoch'), out=str(tmp_path))
    seen = []
    trainer.extend(lambda t: seen.append(sorted(t.observation)), trigger=(1, 'iteration'))
    trainer.run()
    assert upd.iteration == 4 and upd.epoch == 2
    assert 'main/loss' in seen[-1] and 'sub/loss' in seen[-1]
    assert opt.epoch == 2
    assert chainlite.training.updaters.ParallelUpdater is updaters.ParallelUpdater


def test_multiprocess_parallel_updater_is_unavailable_on_cpu():
    from chainlite.training.updaters import multiprocess_parallel_updater as mpu
    assert not updaters.MultiprocessParallelUpdater.available()
    model = _model()
    with pytest.raises(RuntimeError, match='needs NCCL.*ParallelUpdater'):
        updaters.MultiprocessParallelUpdater([iterators.SerialIterator(_data(), 4)],
                                             optimizers.SGD().setup(model), devices=[-1])
    with pytest.raises(RuntimeError, match='gather_grads works only on GPU'):
        mpu.gather_grads(model)
    with pytest.raises(RuntimeError, match='gather_params works only on GPU'):
        mpu.gather_params(model)
    size, num = mpu.size_num_grads(model)
    assert (size, num) == (3 * 2 + 2, 2)
    flat = np.arange(size, dtype=np.float32)
    mpu.scatter_params(model, flat)
    np.testing.assert_array_equal(model.predictor.W.array.ravel(), flat[:6])
    mpu.scatter_grads(model, flat[::-1])
    np.testing.assert_array_equal(model.predictor.b.grad, flat[::-1][6:])
    with pytest.raises(ValueError, match='has 3 elements'):
        mpu.scatter_params(model, flat[:3])
