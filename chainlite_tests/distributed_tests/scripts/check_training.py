"""Data-parallel training checks under mpiexec (run by test_training.py with 2 processes).

Usage: check_training.py OUT_DIR
"""
import io
import os
import sys
import warnings

import numpy as np
from numpy.testing import assert_allclose

import _harness
import chainlite as C
import chainlite.functions as F
import chainlite.links as L
from chainlite import distributed as D
from chainlite import training
from chainlite.serializers import npz
from chainlite.training import extensions

OUT = sys.argv[1]


def _mlp(n_in=None):
    model = C.Sequential(L.Linear(n_in, 8), F.tanh, L.Linear(8, 3))
    return model


def _as_float64(model):
    for p in model.params():
        p.array = p.array.astype(np.float64)
    return model


def _batches(steps, batch, seed=0):
    rng = np.random.RandomState(seed)
    return [(rng.randn(batch, 5), rng.randint(0, 3, batch).astype(np.int32))
            for _ in range(steps)]


def _loss(model, x, t):
    return F.softmax_cross_entropy(model(x), t)


def check_optimizer_equivalence(comm):
    # N ranks each on B/N examples == one process on B, for Adam and MomentumSGD.
    r, n = comm.rank, comm.size
    b = 4 * n
    for make in (lambda: C.optimizers.Adam(alpha=0.01),
                 lambda: C.optimizers.MomentumSGD(lr=0.1)):
        np.random.seed(r)                       # different initial values on every rank
        model = _as_float64(_mlp(5))
        opt = D.create_multi_node_optimizer(make(), comm).setup(model)
        ref = model.copy('copy')                # rank 0's values, after the broadcast
        ref_opt = make().setup(ref)
        for x, t in _batches(20, b):
            part = slice(r * b // n, (r + 1) * b // n)
            opt.update(_loss, model, x[part], t[part])
            ref_opt.update(_loss, ref, x, t)
        assert opt.t == ref_opt.t == 20
        for (k, p), (_, q) in zip(sorted(model.namedparams()), sorted(ref.namedparams())):
            assert np.abs(p.array - q.array).max() < 1e-6, k
        values = comm.gather_obj([p.array for _, p in sorted(model.namedparams())])
        if r == 0:
            for other in values[1:]:
                for a, c in zip(values[0], other):
                    assert_allclose(a, c, rtol=0, atol=1e-12)


def _saved(opt):
    buf = io.BytesIO()
    npz.save_npz(buf, opt)
    with np.load(io.BytesIO(buf.getvalue())) as f:
        return {k: f[k] for k in f.files}


def check_sharded_update(comm):
    # shard_update=True: each rank updates its share; the result, t, the rules' t and the
    # saved state equal one process on the whole batch (hooks, lr changes, fallback).
    r, n = comm.rank, comm.size
    b = 4 * n
    configs = [
        (lambda: C.optimizers.Adam(alpha=0.01), lambda o: o.add_hook(
            C.optimizer_hooks.WeightDecay(1e-3)), 'alpha'),
        (lambda: C.optimizers.MomentumSGD(lr=0.1), lambda o: None, 'lr'),
        # GradientClipping needs every gradient's norm: the plain update runs instead.
        (lambda: C.optimizers.Adam(alpha=0.01), lambda o: o.add_hook(
            C.optimizer_hooks.GradientClipping(0.5)), 'alpha'),
    ]
    for make, hook, rate in configs:
        np.random.seed(r)
        model = _as_float64(_mlp(5))
        opt = D.create_multi_node_optimizer(make(), comm, shard_update=True).setup(model)
        hook(opt)
        ref = model.copy('copy')
        ref_opt = make().setup(ref)
        hook(ref_opt)
        for step, (x, t) in enumerate(_batches(20, b)):
            if step == 10:                      # an lr schedule's change
                setattr(opt, rate, getattr(opt, rate) * 0.5)
                setattr(ref_opt, rate, getattr(ref_opt, rate) * 0.5)
            part = slice(r * b // n, (r + 1) * b // n)
            opt.update(_loss, model, x[part], t[part])
            ref_opt.update(_loss, ref, x, t)
        assert opt.t == ref_opt.t == 20
        for (k, p), (_, q) in zip(sorted(model.namedparams()), sorted(ref.namedparams())):
            assert np.abs(p.array - q.array).max() < 1e-6, k
            assert p.update_rule.t == q.update_rule.t == 20, k
        mine, theirs = _saved(opt), _saved(ref_opt)
        assert sorted(mine) == sorted(theirs), (sorted(mine), sorted(theirs))
        for k in mine:
            assert np.abs(mine[k] - theirs[k]).max() < 1e-6, k
        values = comm.gather_obj([p.array for _, p in sorted(model.namedparams())])
        if r == 0:
            for other in values[1:]:
                for a, c in zip(values[0], other):
                    assert_allclose(a, c, rtol=0, atol=0)
    # A lazily initialized model: the first update broadcasts, then the shares are dealt.
    np.random.seed(r)
    model = _mlp(None)
    opt = D.create_multi_node_optimizer(C.optimizers.Adam(), comm,
                                        shard_update=True).setup(model)
    for x, t in _batches(3, 4, seed=2):
        opt.update(_loss, model, x.astype(np.float32), t)
    assert opt.t == 2
    values = comm.gather_obj([p.array for _, p in sorted(model.namedparams())])
    if r == 0:
        for a, c in zip(values[0], values[1]):
            assert_allclose(a, c, rtol=0, atol=0)
    try:
        D.create_multi_node_optimizer(C.optimizers.SGD(), comm, double_buffering=True,
                                      shard_update=True)
    except ValueError as e:
        assert 'shard_update' in str(e)
    else:
        raise AssertionError('shard_update with double_buffering was accepted')


def check_double_buffering(comm):
    # Each update applies the averaged gradients of the step before.
    r, n = comm.rank, comm.size
    b = 2 * n
    np.random.seed(r)
    model = _as_float64(_mlp(5))
    opt = D.create_multi_node_optimizer(C.optimizers.SGD(lr=0.1), comm,
                                        double_buffering=True).setup(model)
    ref = model.copy('copy')
    ref_opt = C.optimizers.SGD(lr=0.1).setup(ref)
    stale = None
    for x, t in _batches(10, b, seed=1):
        part = slice(r * b // n, (r + 1) * b // n)
        opt.update(_loss, model, x[part], t[part])
        ref.cleargrads()
        _loss(ref, x, t).backward()
        grads = [p.grad.copy() for _, p in sorted(ref.namedparams())]
        if stale is not None:
            for (_, p), g in zip(sorted(ref.namedparams()), stale):
                p.grad = g
            ref_opt.update()
        stale = grads
    assert opt.t == ref_opt.t == 9
    for (_, p), (_, q) in zip(sorted(model.namedparams()), sorted(ref.namedparams())):
        assert np.abs(p.array - q.array).max() < 1e-6
    opt.wait()


def check_lazy_parameters(comm):
    # Linear(None, ...) initializes at the first forward: that update broadcasts and skips.
    np.random.seed(comm.rank)
    model = _mlp(None)
    opt = D.create_multi_node_optimizer(C.optimizers.SGD(lr=0.1), comm).setup(model)
    for x, t in _batches(3, 4, seed=2):
        opt.update(_loss, model, x.astype(np.float32), t)
    assert opt.t == 2
    values = comm.gather_obj([p.array for _, p in sorted(model.namedparams())])
    if comm.rank == 0:
        for a, c in zip(values[0], values[1]):
            assert_allclose(a, c, rtol=0, atol=0)
    opt.lr = 0.5                                  # attributes pass through to the optimizer
    assert opt.actual_optimizer.lr == 0.5


def _dataset(comm, n=96):
    data = None
    if comm.rank == 0:
        rng = np.random.RandomState(0)
        x = rng.randn(n, 5).astype(np.float32)
        t = (x[:, 0] > 0).astype(np.int32) + (x[:, 1] > 0).astype(np.int32)
        data = C.datasets.TupleDataset(x, t)
    return data


def _trainer(comm, out, stop, snapshot=False, seed=0, shard=False):
    np.random.seed(seed)
    model = L.Classifier(_mlp(5))
    opt = D.create_multi_node_optimizer(C.optimizers.Adam(), comm,
                                        shard_update=shard).setup(model)
    train = D.scatter_dataset(_dataset(comm), comm, shuffle=True, seed=1)
    it = C.iterators.SerialIterator(train, 8, shuffle=False)
    updater = training.updaters.StandardUpdater(it, opt)
    trainer = training.Trainer(updater, stop, out=out)
    if snapshot:
        snap = D.extensions.multi_node_snapshot(
            comm, extensions.snapshot(filename='snap_{.updater.iteration}', autoload=True), [0])
        trainer.extend(snap, trigger=(3, 'iteration'))
    return trainer, model


def check_trainer_and_evaluator(comm):
    trainer, model = _trainer(comm, os.path.join(OUT, 'plain'), (2, 'epoch'))
    test = D.scatter_dataset(_dataset(comm, 40), comm)
    test_iter = C.iterators.SerialIterator(test, 10, repeat=False, shuffle=False)
    evaluator = D.create_multi_node_evaluator(extensions.Evaluator(test_iter, model), comm)
    trainer.extend(evaluator)
    trainer.extend(D.extensions.ObservationAggregator(comm, 'main/loss', 'main/loss_all'))
    if comm.rank == 0:
        trainer.extend(extensions.LogReport())
    trainer.run()
    values = comm.gather_obj([p.array for _, p in sorted(model.namedparams())])
    if comm.rank == 0:
        for a, c in zip(values[0], values[1]):
            assert_allclose(a, c, rtol=0, atol=0)
        log = trainer.get_extension('LogReport').log
        assert len(log) == 2 and 'validation/main/accuracy' in log[-1]
    result = evaluator()
    plain = extensions.Evaluator(test_iter, model)
    plain.name = 'validation'
    local = plain()
    everyone = comm.gather_obj(local)
    results = comm.gather_obj(result)
    if comm.rank == 0:
        for key in result:
            expected = np.mean([float(e[key]) for e in everyone])
            assert all(abs(float(rr[key]) - expected) < 1e-6 for rr in results), key
    aggregated = trainer.observation['main/loss_all']
    assert len(set(comm.allreduce_obj([round(float(aggregated), 9)]))) == 1


def check_early_stopping(comm):
    # The monitored loss is averaged over ranks, so every rank stops at the same iteration.
    trainer, _ = _trainer(comm, os.path.join(OUT, 'early'), None)
    trainer.stop_trigger = D.extensions.MultiNodeEarlyStoppingTrigger(
        comm, check_trigger=(1, 'iteration'), monitor='main/loss', patience=1, mode='max',
        max_trigger=(50, 'iteration'))
    trainer.run()
    stopped = comm.allreduce_obj([trainer.updater.iteration])
    assert len(set(stopped)) == 1 and stopped[0] < 50, stopped


def check_snapshot_resume(comm):
    out = os.path.join(OUT, 'resume')
    first, _ = _trainer(comm, out, (6, 'iteration'), snapshot=True)
    first.run()
    resumed, model = _trainer(comm, out, (12, 'iteration'), snapshot=True, seed=5)
    resumed.run()
    straight, ref = _trainer(comm, os.path.join(OUT, 'straight'), (12, 'iteration'))
    straight.run()
    assert resumed.updater.iteration == 12
    for (_, p), (_, q) in zip(sorted(model.namedparams()), sorted(ref.namedparams())):
        assert_allclose(p.array, q.array, rtol=0, atol=1e-7)
    names = sorted(os.listdir(out))
    expected = {'snap_%d.%d' % (i, rank) for i in (3, 6, 9, 12) for rank in range(comm.size)}
    assert expected <= set(names), names


def check_sharded_snapshot_resume(comm):
    # The snapshot of a sharded run holds the whole state: resuming (also into a plain run)
    # continues exactly as the run that never stopped.
    out = os.path.join(OUT, 'resume_sharded')
    first, _ = _trainer(comm, out, (6, 'iteration'), snapshot=True, shard=True)
    first.run()
    resumed, model = _trainer(comm, out, (12, 'iteration'), snapshot=True, seed=5, shard=True)
    resumed.run()
    straight, ref = _trainer(comm, os.path.join(OUT, 'straight_sharded'), (12, 'iteration'))
    straight.run()
    assert resumed.updater.iteration == 12
    for (_, p), (_, q) in zip(sorted(model.namedparams()), sorted(ref.namedparams())):
        assert_allclose(p.array, q.array, rtol=0, atol=1e-7)


def check_checkpointer(comm):
    path = os.path.join(OUT, 'checkpoints')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        cp = D.create_multi_node_checkpointer('run', comm, path=path)
    np.random.seed(comm.rank)
    model = _mlp(5)
    for it in (10, 20):
        for p in model.params():
            p.array = p.array + 1
        cp.save(model, it)
    saved = [p.array.copy() for p in model.params()]
    other = _mlp(5)
    cp2 = D.extensions.checkpoint._MultiNodeCheckpointer('run', comm, 5, 5, path)
    cp2.maybe_load(other)
    for a, p in zip(saved, other.params()):
        assert_allclose(p.array, a)
    assert sorted(cp2.files) == ['run.%d.10' % comm.rank, 'run.%d.20' % comm.rank]
    cp2.finalize()
    assert 'Snapshot duration' in cp.get_stats()


def check_generic_evaluator(comm):
    class Count(D.extensions.GenericMultiNodeEvaluator):
        def calc_local(self, x, t):
            return int(t.sum()), len(t)

        def aggregate(self, results):
            return sum(r[0] for r in results), sum(r[1] for r in results)

    data = C.datasets.TupleDataset(np.zeros((13, 1), np.float32), np.arange(13) % 3)
    part = D.scatter_dataset(data if comm.rank == 0 else None, comm,
                             force_equal_length=False)
    it = C.iterators.SerialIterator(part, 2, repeat=False, shuffle=False)
    result = Count(comm, it, None)()
    if comm.rank == 0:
        assert result == (int((np.arange(13) % 3).sum()), 13), result
    else:
        assert result is None


if __name__ == '__main__':
    communicator = D.create_communicator('naive')
    _harness.run(communicator, [
        check_optimizer_equivalence, check_sharded_update, check_double_buffering,
        check_lazy_parameters, check_trainer_and_evaluator, check_early_stopping,
        check_snapshot_resume, check_sharded_snapshot_resume, check_checkpointer,
        check_generic_evaluator,
    ])
