"""The communicators with GPU arrays (the CuPy stand-in in each rank), under mpiexec -n 2.

Run by chainlite_tests/gpu_tests/test_distributed.py. Each rank installs the stand-in and
uses its ``intra_rank`` GPU, as ChainerMN scripts do; every check runs the same code on
NumPy and on GPU arrays and requires the same results (bit for bit: the stand-in computes
with NumPy), GPU arrays back, on the expected device, of the same dtype.

With ``CHAINLITE_TEST_GPU=1`` the ranks use real CuPy instead (GPU ``intra_rank`` modulo the
number of GPUs); results that involve arithmetic beyond communication (training, batch
normalization) are then compared to a tolerance, and the NCCL check uses CuPy's NCCL where
there is a GPU per rank (the stand-in NCCL addresses host memory only).
"""
import contextlib
import os
import sys

import numpy as np
from numpy.testing import assert_array_equal, assert_allclose

import _harness
import chainlite as C
import chainlite.functions as F
import chainlite.links as L
from chainlite import distributed as D
from chainlite import optimizer
from chainlite.backends import cuda
from chainlite.testing import cupy_stand_in

DTYPES = (np.float16, np.float32, np.float64, np.int32)
cp = None   # the stand-in, once installed (or real CuPy)
REAL = os.environ.get('CHAINLITE_TEST_GPU') == '1'
TOL = 1e-5 if REAL else 0   # beyond communication: GPU arithmetic differs from the CPU's


def _device_id(comm):
    # The GPU of this rank: its intra rank, as ChainerMN scripts choose.
    return comm.intra_rank % cp.cuda.runtime.getDeviceCount()


def _gpu(a):
    return cp.asarray(a)


def _host(a):
    assert isinstance(a, cp.ndarray), type(a)
    return a.get()


def _on_device(a, device_id, dtype=None):
    assert isinstance(a, cp.ndarray), type(a)
    assert a.device.id == device_id, (a.device.id, device_id)
    if dtype is not None:
        assert a.dtype == dtype, (a.dtype, dtype)


def _same(gpu_result, cpu_result, device_id):
    _on_device(gpu_result, device_id, cpu_result.dtype)
    assert_array_equal(_host(gpu_result), cpu_result)


def _array_calls(comm, xp):
    # The array collectives on arrays of ``xp``: what each returns, by name.
    r, n = comm.rank, comm.size
    out = {}
    for dtype in DTYPES:
        x = xp.asarray((np.arange(6).reshape(2, 3) + 10 * r).astype(dtype))
        out['bcast', dtype] = comm.bcast(x if r == 1 else None, root=1)
        out['allreduce', dtype] = comm.allreduce(x)
        out['allgather', dtype] = comm.allgather(xp.asarray(np.full((r + 1, 2), r, dtype)))
        g = comm.gather(xp.asarray(np.full((r + 1,), r, dtype)), root=0)
        out['gather', dtype] = g if g is not None else ()
        pieces = tuple(xp.asarray(np.full((k + 1,), k + 5, dtype)) for k in range(n))
        out['scatter', dtype] = comm.scatter(pieces if r == 1 else None, root=1)
        sent = tuple(xp.asarray(np.full((k + 1, r + 1), 100 * r + k, dtype))
                     for k in range(n))
        out['alltoall', dtype] = comm.alltoall(sent)
        comm.send(x, (r + 1) % n, tag=5)
        comm.send((x, x[:1] * 2), (r + 1) % n, tag=6)
        out['recv', dtype] = comm.recv((r - 1) % n, tag=5)
        out['recv tuple', dtype] = comm.recv((r - 1) % n, tag=6)
    return out


def _compare(gpu, cpu, device_id):
    assert gpu.keys() == cpu.keys()
    for key in cpu:
        g, c = gpu[key], cpu[key]
        if isinstance(c, tuple):
            assert isinstance(g, tuple) and len(g) == len(c), key
            for a, b in zip(g, c):
                _same(a, b, device_id)
        else:
            _same(g, c, device_id)


def check_array_collectives(comm):
    dev = _device_id(comm)
    for name in ('naive', 'flat', 'dummy'):
        sub = D.create_communicator(name)
        _compare(_array_calls(sub, cp), _array_calls(sub, np), dev)
    # A call mixing NumPy and CuPy arrays is refused on the rank that makes it.
    try:
        comm.send((np.zeros(1), cp.zeros(1)), 1 - comm.rank, tag=9)
    except TypeError as e:
        assert 'NumPy and CuPy arrays are mixed' in str(e)
    else:
        raise AssertionError('no TypeError')


def check_object_collectives(comm):
    r = comm.rank
    x = _gpu(np.arange(3.0) + r)
    comm.send_obj({'x': x}, dest=1 - r, tag=3)
    got = comm.recv_obj(source=1 - r, tag=3)['x']
    assert_array_equal(_host(got), np.arange(3.0) + (1 - r))
    b = comm.bcast_obj(x if r == 0 else None)
    assert_array_equal(_host(b), np.arange(3.0))
    total = comm.allreduce_obj(x)
    assert_array_equal(_host(total), 2 * np.arange(3.0) + 1)
    gathered = comm.gather_obj(x)
    if r == 0:
        assert [_host(a).tolist() for a in gathered] == [[0, 1, 2], [1, 2, 3]]


class _Model(C.Chain):
    def __init__(self, dtypes=(np.float32,)):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(3, 4)
            self.l2 = L.Linear(4, 2)
        for i, (_, p) in enumerate(sorted(self.namedparams())):
            p.array = p.array.astype(dtypes[i % len(dtypes)])

    def forward(self, x):
        return self.l2(F.tanh(self.l1(x)))


def _with_grads(comm, dtypes, device):
    # A model with random parameters and gradients, drawn from the rank (or a number).
    model = _Model(dtypes)
    rng = np.random.RandomState(comm if isinstance(comm, int) else comm.rank)
    for _, p in sorted(model.namedparams()):
        p.array = rng.standard_normal(p.shape).astype(p.dtype)
        p.grad = rng.standard_normal(p.shape).astype(p.dtype)
    if device is not None:
        model.to_device(device)
    return model


def _params(model, attr):
    return [(name, getattr(p, attr)) for name, p in sorted(model.namedparams())]


def _compare_models(gpu_model, cpu_model, attr, device_id):
    for (name, g), (_, c) in zip(_params(gpu_model, attr), _params(cpu_model, attr)):
        _same(g, c, device_id)


def check_mean_grad_and_bcast_data(comm):
    dev = _device_id(comm)
    device = '@cupy:%d' % dev
    for name in ('naive', 'flat', 'dummy'):
        sub = D.create_communicator(name)
        for dtypes in [(np.float32,), (np.float16,), (np.float64, np.float32, np.float16)]:
            cpu, gpu = _with_grads(comm, dtypes, None), _with_grads(comm, dtypes, device)
            before = [id(g) for _, g in _params(gpu, 'grad')]
            sub.multi_node_mean_grad(cpu)
            sub.multi_node_mean_grad(gpu)
            _compare_models(gpu, cpu, 'grad', dev)
            assert [id(g) for _, g in _params(gpu, 'grad')] == before   # in place
            sub.bcast_data(cpu)
            sub.bcast_data(gpu)
            _compare_models(gpu, cpu, 'array', dev)
    # Rank 0's parameters everywhere, and the gradients really averaged.
    gpu = _with_grads(comm, (np.float32,), device)
    comm.multi_node_mean_grad(gpu)
    comm.bcast_data(gpu)
    ranks = [_with_grads(k, (np.float32,), None) for k in range(comm.size)]
    assert_array_equal(_host(gpu.l1.W.array), ranks[0].l1.W.array)
    assert_array_equal(_host(gpu.l1.W.grad),
                       (ranks[0].l1.W.grad + ranks[1].l1.W.grad) * np.float32(0.5))
    # zero_fill: a parameter without a gradient gets zeros on its GPU.
    gpu = _with_grads(comm, (np.float32,), device)
    gpu.l2.b.grad = None
    comm.multi_node_mean_grad(gpu, zero_fill=True)
    _on_device(gpu.l2.b.grad, dev, np.float32)
    # allreduce_grad is the deprecated name.
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        cpu, gpu = _with_grads(comm, (np.float32,), None), _with_grads(comm, (np.float32,),
                                                                        device)
        comm.allreduce_grad(cpu)
        comm.allreduce_grad(gpu)
    _compare_models(gpu, cpu, 'grad', dev)


class _SGDRule(optimizer.UpdateRule):
    # The plainest update (the GPU work on chainlite's optimizers is not this check's
    # subject): works on any array module through the in-place operators.
    def update_core(self, param):
        param.array -= param.array.dtype.type(self.hyperparam.lr) * param.grad


class _SGD(optimizer.GradientMethod):
    def __init__(self, lr=0.1):
        super().__init__()
        self.hyperparam.lr = lr

    def create_update_rule(self):
        return _SGDRule(self.hyperparam)


def _train(comm, device, double_buffering=False, steps=4):
    model = L.Classifier(_Model())
    rng = np.random.RandomState(100 + comm.rank)   # rank 0's are broadcast at setup
    for _, p in sorted(model.namedparams()):
        p.array[...] = rng.standard_normal(p.shape).astype(np.float32)
    if device is not None:
        model.to_device(device)
    xp = np if device is None else cp
    opt = D.create_multi_node_optimizer(_SGD(), comm, double_buffering=double_buffering)
    opt.setup(model)
    losses = []
    for step in range(steps):
        data = np.random.RandomState(step * 10 + comm.rank)
        x = xp.asarray(data.standard_normal((5, 3)).astype(np.float32))
        t = xp.asarray(data.randint(0, 2, 5).astype(np.int32))
        opt.update(model, x, t)
        losses.append(float(model.loss.array))
    return model, losses


def check_multi_node_optimizer(comm):
    dev = _device_id(comm)
    for double_buffering in (False, True):
        cpu, cpu_losses = _train(comm, None, double_buffering)
        gpu, gpu_losses = _train(comm, '@cupy:%d' % dev, double_buffering)
        _compare_models_close(gpu, cpu, 'array', dev, TOL)
        assert_allclose(gpu_losses, cpu_losses, rtol=TOL)
        # Every rank holds the same model.
        w = comm.allgather(gpu.predictor.l1.W.array)
        assert_array_equal(_host(w[0]), _host(w[1]))
    # shard_update on a GPU model: the plain update, same result.
    model = L.Classifier(_Model()).to_device('@cupy:%d' % dev)
    opt = D.create_multi_node_optimizer(_SGD(), comm, shard_update=True)
    opt.setup(model)
    x = cp.asarray(np.ones((2, 3), np.float32))
    opt.update(model, x, cp.asarray(np.array([0, 1], np.int32)))
    _on_device(model.predictor.l1.W.array, dev, np.float32)


def _trainer_log(comm, device, out):
    from chainlite import training
    from chainlite.training import extensions
    rng = np.random.RandomState(0)
    data = C.datasets.TupleDataset(rng.standard_normal((40, 3)).astype(np.float32),
                                   rng.randint(0, 2, 40).astype(np.int32))
    model = _Model()
    for _, p in sorted(model.namedparams()):
        p.array[...] = rng.standard_normal(p.shape).astype(np.float32)
    model = L.Classifier(model)
    if device is not None:
        model.to_device(device)
    opt = D.create_multi_node_optimizer(C.optimizers.SGD(), comm)
    opt.setup(model)
    train = D.scatter_dataset(data[:32] if comm.rank == 0 else None, comm)
    test = D.scatter_dataset(data[32:] if comm.rank == 0 else None, comm)
    updater = training.updaters.StandardUpdater(
        C.iterators.SerialIterator(train, 4, shuffle=False), opt, device=device)
    trainer = training.Trainer(updater, (2, 'epoch'), out=out)
    trainer.extend(D.create_multi_node_evaluator(extensions.Evaluator(
        C.iterators.SerialIterator(test, 4, repeat=False, shuffle=False), model,
        device=device), comm))
    trainer.extend(extensions.LogReport())
    trainer.run()
    return model, trainer.get_extension('LogReport').log


def check_trainer_and_evaluator(comm):
    # The whole loop: StandardUpdater and Evaluator with device=, chainlite's SGD.
    import tempfile
    dev = _device_id(comm)
    out = tempfile.mkdtemp()
    cpu, cpu_log = _trainer_log(comm, None, out)
    gpu, gpu_log = _trainer_log(comm, '@cupy:%d' % dev, out)
    _compare_models_close(gpu, cpu, 'array', dev, max(TOL, 1e-6))
    assert len(gpu_log) == len(cpu_log) == 2
    for g, c in zip(gpu_log, cpu_log):
        for key in ('main/loss', 'validation/main/loss', 'validation/main/accuracy'):
            assert_allclose(float(g[key]), float(c[key]), rtol=max(TOL, 1e-6))
    # Every rank reports the same validation numbers.
    both = comm.gather_obj(float(gpu_log[-1]['validation/main/loss']))
    if comm.rank == 0:
        assert both[0] == both[1], both


def check_batch_normalization(comm):
    dev = _device_id(comm)
    rng = np.random.RandomState(7 + comm.rank)
    x = rng.standard_normal((4, 3, 2)).astype(np.float32)
    gy = rng.standard_normal((4, 3, 2)).astype(np.float32)
    results = {}
    for where in ('cpu', 'gpu'):
        bn = D.links.MultiNodeBatchNormalization(3, comm)
        xv = C.Variable(x.copy())
        if where == 'gpu':
            bn.to_device('@cupy:%d' % dev)
            xv.to_device('@cupy:%d' % dev)
        y = bn(xv)
        y.grad = _gpu(gy) if where == 'gpu' else gy
        y.backward()
        results[where] = (y.array, xv.grad, bn.gamma.grad, bn.beta.grad, bn.avg_mean,
                          bn.avg_var)
    for g, c in zip(results['gpu'], results['cpu']):
        _on_device(g, dev, c.dtype)
        assert_allclose(_host(g), c, rtol=max(TOL, 1e-6), atol=max(TOL, 1e-6))
    # allreduce_persistent averages the running statistics in place, on the GPU.
    bn = D.links.MultiNodeBatchNormalization(3, comm).to_device('@cupy:%d' % dev)
    bn.avg_mean[...] = cp.asarray(np.full(3, comm.rank, np.float32))
    mean = bn.avg_mean
    D.extensions.AllreducePersistent(bn, comm)()
    assert bn.avg_mean is mean
    _on_device(bn.avg_mean, dev, np.float32)
    assert_array_equal(_host(bn.avg_mean), np.full(3, 0.5, np.float32))


def check_function_send_recv(comm):
    dev = _device_id(comm)
    xs = {}
    for where in ('cpu', 'gpu'):
        x = np.arange(6, dtype=np.float32).reshape(2, 3) + comm.rank
        v = C.Variable(_gpu(x) if where == 'gpu' else x)
        if comm.rank == 0:
            h = v * 2
            delegate = D.functions.send(h, comm, rank=1)
            delegate.backward()
            xs[where] = v.grad
        else:
            h = D.functions.recv(comm, rank=0)
            loss = F.sum(h * h) + F.sum(v)
            loss.backward()
            xs[where] = h.array
    _same(xs['gpu'], xs['cpu'], dev)


def _chain_list_run(comm, device):
    # Rank 0: l1, then (after rank 1's l2) l3 and the loss; gradients come back by send/recv.
    rng = np.random.RandomState(3)
    links = [L.Linear(3, 4), L.Linear(4, 4), L.Linear(4, 2)]
    for link in links:
        for _, p in sorted(link.namedparams()):
            p.array[...] = rng.standard_normal(p.shape).astype(np.float32)
        if device is not None:
            link.to_device(device)
    x = np.random.RandomState(5).standard_normal((5, 3)).astype(np.float32)
    model = D.MultiNodeChainList(comm)
    if comm.rank == 0:
        model.add_link(links[0], rank_in=None, rank_out=1)
        model.add_link(links[2], rank_in=1, rank_out=None)
        y = model(x if device is None else cp.asarray(x))
        F.sum(y * y).backward()
        return y.array, links[0].W.grad, links[2].W.grad
    model.add_link(links[1], rank_in=0, rank_out=0)
    model().backward()
    return (links[1].W.grad,)


def check_multi_node_chain_list(comm):
    dev = _device_id(comm)
    for g, c in zip(_chain_list_run(comm, '@cupy:%d' % dev), _chain_list_run(comm, None)):
        _on_device(g, dev, c.dtype)
        assert_allclose(_host(g), c, rtol=max(TOL, 1e-6), atol=max(TOL, 1e-6))


def check_scatter_dataset_and_evaluator(comm):
    dev = _device_id(comm)
    data = _gpu(np.arange(10, dtype=np.float32)) if comm.rank == 0 else None
    mine = D.scatter_dataset(data, comm, shuffle=False)
    got = np.array([float(mine[i]) for i in range(len(mine))])
    expected = np.arange(10, dtype=np.float32)[comm.rank * 5:(comm.rank + 1) * 5]
    assert_array_equal(got, expected)

    class _Evaluator:
        def evaluate(self):
            return {'main/loss': cp.asarray(np.float32(comm.rank + 1))}

    result = D.create_multi_node_evaluator(_Evaluator(), comm).evaluate()
    assert float(result['main/loss']) == 1.5
    del dev


def check_checkpointer(comm):
    import tempfile
    dev = _device_id(comm)
    path = comm.bcast_obj(tempfile.mkdtemp() if comm.rank == 0 else None)
    model = _with_grads(comm, (np.float32,), '@cupy:%d' % dev)
    opt = D.create_multi_node_optimizer(_SGD(), comm)
    opt.setup(model)
    saved = _host(model.l1.W.array)

    class _Trainer:
        out = path
        updater = type('U', (), {'iteration': 3, 'epoch': 0})()

        def serialize(self, serializer):
            model.serialize(serializer['model'])

    checkpointer = D.create_multi_node_checkpointer('gpu', comm, path=path)
    checkpointer.save(_Trainer(), 3)
    model.l1.W.array[...] = 0
    checkpointer.maybe_load(_Trainer(), opt)
    _on_device(model.l1.W.array, dev, np.float32)
    assert_array_equal(_host(model.l1.W.array), saved)


def _install_fake_nccl():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _fake_nccl
    cp.cuda.nccl = _fake_nccl
    return _fake_nccl


def check_pure_nccl(comm):
    from chainlite.distributed import nccl as nccl_module
    dev = _device_id(comm)
    if REAL:
        if not nccl_module._available:
            _expect_no_nccl()
            return
        if cp.cuda.runtime.getDeviceCount() < comm.size:
            return   # NCCL refuses two ranks on one GPU
        _check_nccl_communicators(comm, dev, None)
        return
    real = cp.cuda.nccl
    try:
        _check_nccl_communicators(comm, dev, _install_fake_nccl())
    finally:
        cp.cuda.nccl = real
    # Without NCCL in CuPy (the stand-in's): a clear error on every rank, no hang.
    _expect_no_nccl()


def _expect_no_nccl():
    try:
        D.create_communicator('pure_nccl')
    except RuntimeError as e:
        assert 'has no NCCL' in str(e), str(e)
    else:
        raise AssertionError('no RuntimeError')


class _NoLog:
    # Where real NCCL runs, its calls are not logged.
    CALLS = None


def _expect_calls(fake, expected):
    if fake.CALLS is not None:
        assert fake.CALLS == expected, fake.CALLS


def _clear(fake):
    if fake.CALLS is not None:
        del fake.CALLS[:]


def _check_nccl_communicators(comm, dev, fake):
    fake = fake or _NoLog()

    def nccl_id(name):
        return getattr(fake if fake.CALLS is not None else cp.cuda.nccl, name)

    nccl = D.create_communicator('pure_nccl')
    flat = D.create_communicator('flat')
    # float32 gradients: one NCCL all-reduce of the packed buffer; flat's result.
    cpu, gpu = _with_grads(comm, (np.float32,), None), _with_grads(
        comm, (np.float32,), '@cupy:%d' % dev)
    _clear(fake)
    flat.multi_node_mean_grad(cpu)
    nccl.multi_node_mean_grad(gpu)
    n = sum(p.size for p in gpu.params())
    _expect_calls(fake, [('allReduce', n, nccl_id('NCCL_FLOAT32'))])
    _compare_models(gpu, cpu, 'grad', dev)
    # float16 travel (allreduce_grad_dtype): float16 sums, float32 gradients kept.
    half = D.create_communicator('pure_nccl', allreduce_grad_dtype=np.float16)
    gpu = _with_grads(comm, (np.float32,), '@cupy:%d' % dev)
    _clear(fake)
    half.multi_node_mean_grad(gpu)
    _expect_calls(fake, [('allReduce', n, nccl_id('NCCL_FLOAT16'))])
    _compare_models_close(gpu, cpu, 'grad', dev, 2e-3)
    # bcast_data through NCCL, each dtype its own.
    gpu = _with_grads(comm, (np.float64, np.float32), '@cupy:%d' % dev)
    cpu = _with_grads(comm, (np.float64, np.float32), None)
    _clear(fake)
    nccl.bcast_data(gpu)
    flat.bcast_data(cpu)
    # Sorted by name, W and b alternate float64 and float32: l1/W and l2/W are float64.
    _expect_calls(fake, [('bcast', 4 * 3 + 2 * 4, nccl_id('NCCL_FLOAT64')),
                         ('bcast', 4 + 2, nccl_id('NCCL_FLOAT32'))])
    _compare_models(gpu, cpu, 'array', dev)
    # allreduce and multi-node batch normalization ('auto' picks NCCL).
    x = np.arange(4, dtype=np.float16) + comm.rank
    _same(nccl.allreduce(_gpu(x)), flat.allreduce(x), dev)
    bn = D.links.MultiNodeBatchNormalization(3, nccl).to_device('@cupy:%d' % dev)
    assert bn._communication_backend == 'nccl'
    xb = np.random.RandomState(comm.rank).standard_normal((4, 3)).astype(np.float32)
    bn_cpu = D.links.MultiNodeBatchNormalization(3, flat)
    assert_allclose(_host(bn(_gpu(xb)).array), bn_cpu(xb).array, rtol=max(TOL, 1e-6),
                    atol=max(TOL, 1e-6))
    # non_cuda_aware: NCCL reduce and bcast within the machine, MPI between.
    nca = D.create_communicator('non_cuda_aware')
    cpu, gpu = _with_grads(comm, (np.float32,), None), _with_grads(
        comm, (np.float32,), '@cupy:%d' % dev)
    _clear(fake)
    nca.multi_node_mean_grad(gpu)
    flat.multi_node_mean_grad(cpu)
    _expect_calls(fake, [('reduce', n, nccl_id('NCCL_FLOAT32')),
                         ('bcast', n, nccl_id('NCCL_FLOAT32'))])
    _compare_models(gpu, cpu, 'grad', dev)
    # Double buffering stages float16 travel through host memory in float32.
    model = L.Classifier(_Model()).to_device('@cupy:%d' % dev)
    opt = D.create_multi_node_optimizer(_SGD(), half, double_buffering=True)
    opt.setup(model)
    for _ in range(2):
        opt.update(model, cp.asarray(np.ones((2, 3), np.float32)),
                   cp.asarray(np.array([0, 1], np.int32)))
    opt.wait()
    _on_device(model.predictor.l1.W.grad, dev, np.float32)
    nccl.finalize()
    if fake.CALLS is not None:
        assert fake.CALLS[-1] == ('destroy',)


def _compare_models_close(gpu_model, cpu_model, attr, device_id, tol):
    for (_, g), (_, c) in zip(_params(gpu_model, attr), _params(cpu_model, attr)):
        _on_device(g, device_id, c.dtype)
        assert_allclose(_host(g), c, rtol=tol, atol=tol)


def fail_on_rank_1(comm):
    # Rank 1's GPU work fails (it asks for a GPU that is not there) while rank 0 averages
    # its GPU gradients: the job must stop, not wait for rank 1 forever.
    model = _with_grads(comm, (np.float32,), '@cupy:%d' % _device_id(comm))
    if comm.rank == 1:
        with cp.cuda.Device(999):
            model.l1.W.array *= 2
    comm.multi_node_mean_grad(model)


def main():
    global cp
    if REAL:
        cuda._load()
        assert cuda.available, cuda._reason
        context = contextlib.nullcontext(cuda.cupy)
    else:
        context = cupy_stand_in.installed()
    with context as module:
        cp = module
        comm = D.create_communicator('naive')
        assert comm.size == 2, 'run with mpiexec -n 2'
        # Each process uses the GPU of its intra rank, as ChainerMN scripts do.
        cuda.get_device_from_id(_device_id(comm)).use()
        if sys.argv[1:] == ['fail']:
            fail_on_rank_1(comm)
            return
        _harness.run(comm, [
            check_array_collectives, check_object_collectives,
            check_mean_grad_and_bcast_data, check_multi_node_optimizer,
            check_trainer_and_evaluator, check_batch_normalization, check_function_send_recv,
            check_multi_node_chain_list,
            check_scatter_dataset_and_evaluator, check_checkpointer, check_pure_nccl,
        ])


if __name__ == '__main__':
    main()
