"""Communicator, dataset, iterator and differentiable-communication checks, under mpiexec.

Run by test_collectives.py with 2 and with 3 processes.
"""
import warnings

import numpy as np
from numpy.testing import assert_allclose, assert_array_equal

import _harness
import chainlite as C
import chainlite.functions as F
import chainlite.links as L
from chainlite import distributed as D
from chainlite.distributed import functions as DF

DTYPES = (np.float16, np.float32, np.float64, np.int32)


def check_ranks(comm):
    assert comm.size == comm.mpi_comm.size and comm.rank == comm.mpi_comm.rank
    # One machine: every rank is on node 0.
    assert (comm.intra_rank, comm.intra_size) == (comm.rank, comm.size)
    assert (comm.inter_rank, comm.inter_size) == (0, 1)
    sub = comm.split(comm.rank % 2, comm.rank)
    assert type(sub) is type(comm)
    assert sub.size == len(range(comm.rank % 2, comm.size, 2))
    assert sub.allreduce_obj(1) == sub.size
    assert comm.get_config('batched_copy') is True


def check_array_collectives(comm):
    r, n = comm.rank, comm.size
    for dtype in DTYPES:
        x = (np.arange(6).reshape(2, 3) + 10 * r).astype(dtype)
        root_x = np.arange(6).reshape(2, 3).astype(dtype) + 10 * (n - 1)
        y = comm.bcast(x if r == n - 1 else None, root=n - 1)
        assert y.dtype == dtype
        assert_array_equal(y, root_x)
        # Shapes may differ per rank for gather and allgather.
        xr = np.full((r + 1, 2), r, dtype)
        g = comm.gather(xr, root=0)
        if r == 0:
            assert [a.shape for a in g] == [(k + 1, 2) for k in range(n)]
            for k, a in enumerate(g):
                assert a.dtype == dtype and (a == k).all()
        else:
            assert g is None
        ag = comm.allgather(xr)
        assert len(ag) == n and all((a == k).all() and a.dtype == dtype
                                    for k, a in enumerate(ag))
        s = comm.allreduce(x)
        expected = sum((np.arange(6).reshape(2, 3) + 10 * k) for k in range(n)).astype(dtype)
        assert s.dtype == dtype
        assert_array_equal(s, expected)
        pieces = tuple(np.full((k + 1,), k, dtype) for k in range(n))
        mine = comm.scatter(pieces if r == 0 else None, root=0)
        assert mine.dtype == dtype and mine.shape == (r + 1,) and (mine == r).all()
        stacked = np.arange(2 * n).reshape(n, 2).astype(dtype)
        assert_array_equal(comm.scatter(stacked if r == 0 else None), stacked[r])
        sent = tuple(np.full((k + 1, r + 1), 100 * r + k, dtype) for k in range(n))
        got = comm.alltoall(sent)
        for k, a in enumerate(got):
            assert a.dtype == dtype and a.shape == (r + 1, k + 1)
            assert (a == dtype(100 * k + r)).all()
        # A ring of sends: single arrays and tuples.
        comm.send(x, (r + 1) % n, tag=5)
        comm.send((x, x[:1] * 2), (r + 1) % n, tag=6)
        prev = (r - 1) % n
        assert_array_equal(comm.recv(prev, tag=5), x - 10 * r + 10 * prev)
        a, b = comm.recv(prev, tag=6)
        assert a.dtype == dtype and b.shape == (1, 3)


def check_object_collectives(comm):
    r, n = comm.rank, comm.size
    comm.send_obj({'from': r}, dest=(r + 1) % n, tag=3)
    assert comm.recv_obj(source=(r - 1) % n, tag=3) == {'from': (r - 1) % n}
    big = list(range(1000)) if r == 0 else None
    # Pieces of 100 bytes: many Bcasts.
    assert comm.bcast_obj(big, max_buf_len=100) == list(range(1000))
    assert comm.gather_obj(('r', r)) == ([('r', k) for k in range(n)] if r == 0 else None)
    assert comm.allreduce_obj(r) == n * (n - 1) // 2
    assert_array_equal(comm.allreduce_obj(np.ones(3) * r), np.ones(3) * (n * (n - 1) // 2))


def check_errors(comm):
    n = comm.size
    for call, kind, text in [
        (lambda: comm.alltoall([np.zeros(1)] * (n + 1)), ValueError, 'one per rank'),
        (lambda: comm.allreduce(C.Variable(np.zeros(1))), TypeError, 'pass its .array'),
        (lambda: comm.allgather(np.array(['a'], object)), TypeError, 'dtype object'),
        (lambda: comm.bcast_obj(1, max_buf_len=0), ValueError, 'max_buf_len'),
        (lambda: D.create_communicator('pure_nccl'), RuntimeError, 'NVIDIA GPUs'),
        (lambda: D.create_communicator('hierarchical'), ValueError, 'removed'),
        (lambda: D.create_communicator('flat', allreduce_grad_dtype=np.float16), ValueError,
         'pure_nccl'),
        (lambda: DF.send(C.Variable(np.zeros(1)), comm, comm.rank), ValueError, 'deadlock'),
        (lambda: D.links.MultiNodeBatchNormalization(3, comm, communication_backend='nccl'),
         ValueError, 'nccl is not supported'),
    ]:
        try:
            call()
        except kind as e:
            assert text in str(e), str(e)
        else:
            raise AssertionError('no %s containing %r' % (kind.__name__, text))


class _CountingComm:
    # Counts the Allreduce calls of a communicator's mpi_comm.
    def __init__(self, real):
        self.real, self.allreduces = real, 0

    def Allreduce(self, *args, **kwargs):
        self.allreduces += 1
        return self.real.Allreduce(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.real, name)


def _mlp(dtype):
    model = C.Sequential(L.Linear(3, 4), F.relu, L.Linear(4, 2), L.Linear(2, 2))
    for p in model.params():
        p.array = p.array.astype(dtype)
    return model


def check_mean_grad(comm):
    r, n = comm.rank, comm.size
    for name, dtype, rtol in [('naive', np.float64, 0), ('flat', np.float64, 1e-7),
                              ('naive', np.float16, 1e-3), ('naive', np.float32, 1e-7)]:
        c = D.create_communicator(name)
        model = _mlp(dtype)
        expected = {}
        for i, (k, p) in enumerate(sorted(model.namedparams())):
            base = np.arange(p.size).reshape(p.shape)
            p.grad = (base * (r + 1) + i).astype(dtype)
            expected[k] = base * (n + 1) / 2 + i
        real = c.mpi_comm
        c.mpi_comm = counting = _CountingComm(real)
        c.multi_node_mean_grad(model)
        c.mpi_comm = real
        assert counting.allreduces == 1, counting.allreduces    # one packed buffer
        for k, p in model.namedparams():
            assert p.grad.dtype == dtype
            assert_allclose(p.grad.astype(np.float64), expected[k], rtol=rtol, atol=0)
    # zero_fill: an unused parameter takes part with a zero gradient.
    model = _mlp(np.float64)
    for p in model.params():
        p.grad = np.full(p.shape, float(r))
    unused = model[3].W
    unused.grad = None if r == 0 else unused.grad
    comm.multi_node_mean_grad(model, zero_fill=True)
    assert_allclose(unused.grad, np.full(unused.shape, (n * (n - 1) / 2 - 0) / n))
    assert_allclose(model[0].W.grad, np.full(model[0].W.shape, (n - 1) / 2))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        comm.allreduce_grad(model)
    assert any(issubclass(x.category, DeprecationWarning) for x in w)
    # dummy: packs and unpacks, nothing averaged.
    d = D.create_communicator('dummy')
    before = [p.grad.copy() for p in model.params()]
    d.multi_node_mean_grad(model)
    for b, p in zip(before, model.params()):
        assert_array_equal(b, p.grad)


def check_ring_reduction(comm):
    # Large gradient buffers go round a ring of Sendrecv: the sum is exact (integers in
    # floats), the same bits on every rank, and segments may be uneven or empty.
    r, n = comm.rank, comm.size
    for dtype in (np.float32, np.float64):
        size = (1 << 18) // np.dtype(dtype).itemsize + 7     # above the ring's threshold
        buf = (np.arange(size) % 1000 + r).astype(dtype)
        real = comm.mpi_comm
        comm.mpi_comm = counting = _CountingComm(real)
        scale = comm._reduce_sum(buf)
        comm.mpi_comm = real
        assert counting.allreduces == 0 and scale == 1.0 / n
        assert_array_equal(buf, (np.arange(size) % 1000) * n + n * (n - 1) // 2)
        everyone = comm.gather_obj(buf)
        if r == 0:
            for other in everyone[1:]:
                assert_array_equal(other, everyone[0])
    counts = [5, 0, 9, 2][:n]
    buf = np.arange(sum(counts), dtype=np.float64) * (r + 1)
    assert comm._reduce_scatter_sum(buf, counts) == 1.0 / n
    start = sum(counts[:r])
    mine = slice(start, start + counts[r])
    assert_array_equal(buf[mine], np.arange(sum(counts))[mine] * n * (n + 1) / 2)
    buf[:start] = -1
    buf[start + counts[r]:] = -1
    buf[mine] = r
    comm._allgather_segments(buf, counts)
    assert_array_equal(buf, np.repeat(np.arange(n), counts[:n]).astype(np.float64))


def check_sharded_update_sizes(comm):
    # shard_update with this many ranks, also when some own no parameter at all.
    r = comm.rank
    for make in (lambda: _mlp(np.float64), lambda: C.Sequential(L.Linear(3, 2, nobias=True))):
        results = []
        for shard in (False, True):
            np.random.seed(0)
            model = make()
            opt = D.create_multi_node_optimizer(C.optimizers.Adam(alpha=0.05), comm,
                                                shard_update=shard).setup(model)
            rng = np.random.RandomState(r)
            for _ in range(5):
                x = rng.randn(4, 3).astype(model[0].W.dtype)
                opt.update(lambda v: F.sum(model(v) ** 2), x)
            results.append([p.array.copy() for _, p in sorted(model.namedparams())])
        # (MPI_Allreduce and the ring may add the ranks' terms in another order)
        for a, b in zip(*results):
            assert_allclose(a, b, rtol=0, atol=1e-6)
        everyone = comm.gather_obj(results[1])
        if r == 0:
            for other in everyone[1:]:
                for a, b in zip(everyone[0], other):
                    assert_array_equal(a, b)


def check_bcast_data(comm):
    np.random.seed(comm.rank)
    model = C.Sequential(L.Linear(3, 4), L.Linear(4, 2, nobias=True))
    model[1].W.array = model[1].W.array.astype(np.float16)
    comm.bcast_data(model)
    arrays = comm.gather_obj([p.array for _, p in sorted(model.namedparams())])
    if comm.rank == 0:
        for other in arrays[1:]:
            for a, b in zip(arrays[0], other):
                assert a.dtype == b.dtype
                assert_array_equal(a, b)


def check_scatter_dataset(comm):
    r, n = comm.rank, comm.size
    data = list(range(10)) if r == 0 else None
    part = D.scatter_dataset(data, comm)
    assert len(part) == -(-10 // n)
    parts = comm.allreduce_obj([list(part)])
    assert sorted(set(sum(parts, []))) == list(range(10))
    part = D.scatter_dataset(data, comm, force_equal_length=False)
    parts = comm.allreduce_obj([list(part)])
    assert sorted(sum(parts, [])) == list(range(10))       # disjoint, complete
    assert max(map(len, parts)) - min(map(len, parts)) <= 1
    a = list(D.scatter_dataset(data, comm, shuffle=True, seed=3))
    b = list(D.scatter_dataset(data, comm, shuffle=True, seed=3))
    assert a == b and comm.allreduce_obj(int(a != list(range(10))[r:r + len(a)])) > 0
    b, e = D.scatter_index(10, comm, force_equal_length=False)
    assert comm.allreduce_obj(e - b) == 10
    assert D.create_empty_dataset(part) == [()] * len(part)
    try:
        D.scatter_dataset(data, comm, root=n)
    except ValueError as e:
        assert 'root' in str(e)
    else:
        raise AssertionError('no error for a bad root')


def check_iterators(comm):
    data = [np.full(2, i, np.float32) for i in range(7)]
    base = C.iterators.SerialIterator(data if comm.rank == 0 else [], 3, shuffle=True)
    it = D.create_multi_node_iterator(base, comm)
    seen = []
    for _ in range(6):
        batch = next(it)
        seen.append(([float(x[0]) for x in batch], it.epoch, it.is_new_epoch,
                     round(it.epoch_detail, 6)))
    everyone = comm.gather_obj(seen)
    if comm.rank == 0:
        assert all(s == everyone[0] for s in everyone)
        assert everyone[0][-1][1] == 2            # two epochs and a half
    finite = D.create_multi_node_iterator(
        C.iterators.SerialIterator(data, 4, repeat=False, shuffle=False)
        if comm.rank == 0 else None, comm)
    assert [len(b) for b in finite] == [4, 3]
    # Synchronized: each rank has its own dataset object, the orders agree.
    sync = D.create_synchronized_iterator(
        C.iterators.SerialIterator(list(range(20)), 5, shuffle=True), comm)
    batches = [next(sync) for _ in range(6)]
    everyone = comm.gather_obj(batches)
    if comm.rank == 0:
        assert all(b == everyone[0] for b in everyone)
        assert sorted(sum(everyone[0][:4], [])) == list(range(20))


def check_allreduce_persistent(comm):
    model = C.Sequential(L.BatchNormalization(3), L.Linear(3, 3))
    model[0].avg_mean[...] = comm.rank
    model[0].N = 5 + comm.rank
    D.extensions.AllreducePersistent(model, comm)()
    assert_allclose(model[0].avg_mean, np.full(3, (comm.size - 1) / 2))
    assert model[0].N == 5 + comm.rank           # integers are left alone


def _ring_peers(comm):
    return (comm.rank + 1) % comm.size, (comm.rank - 1) % comm.size


def check_function_send_recv(comm):
    nxt, prev = _ring_peers(comm)

    def ring(x, w):
        # Each rank sends x to the next and multiplies what it receives by w.
        d = DF.send(F.tanh(x), comm, nxt)
        y = DF.recv(comm, prev, delegate_variable=d)
        return y * w

    rng = np.random.RandomState(comm.rank)
    _harness.check_backward(comm, ring, [rng.randn(2, 3), rng.randn(2, 3)])

    def ring_tuple(x):
        d = DF.send((x, x * 2), comm, nxt)
        a, b = DF.recv(comm, prev, delegate_variable=d)
        return a * b

    _harness.check_backward(comm, ring_tuple, [rng.randn(3)])
    for dtype in (np.float16, np.float32):
        x = C.Variable(np.ones(2, dtype))
        d = DF.send(x, comm, nxt)
        y = DF.recv(comm, prev, delegate_variable=d, force_tuple=True)
        assert isinstance(y, tuple) and y[0].dtype == dtype
        F.sum(y[0]).backward()
        assert x.grad.dtype == dtype
        assert_array_equal(x.grad, np.ones(2, dtype))


def check_function_collectives(comm):
    r, n = comm.rank, comm.size
    rng = np.random.RandomState(r)
    root = n - 1

    def f_bcast(x):
        return DF.bcast(comm, x if r == root else None, root=root) * (r + 1)

    _harness.check_backward(comm, f_bcast, [rng.randn(2, 3)])

    def f_gather(x):
        ys = DF.gather(comm, x * x, root=root)
        return tuple(y * (k + 1) for k, y in enumerate(ys)) if r == root else ys

    _harness.check_backward(comm, f_gather, [rng.randn(r + 1, 2)])

    def f_scatter(*xs):
        return DF.scatter(comm, [x * 2 for x in xs] if r == root else None, root=root)

    _harness.check_backward(comm, f_scatter, [rng.randn(k + 1) for k in range(n)])

    def f_allgather(x):
        return DF.allgather(comm, x * x)

    _harness.check_backward(comm, f_allgather, [rng.randn(2, r + 1)])
    _harness.check_double_backward(comm, f_allgather, [rng.randn(2, r + 1)])

    def f_alltoall(*xs):
        return DF.alltoall(comm, [x * x for x in xs])

    xs = [rng.randn(k + 1, r + 1) for k in range(n)]
    _harness.check_backward(comm, f_alltoall, xs)
    _harness.check_double_backward(comm, f_alltoall, xs)
    # dtypes are kept; the first-order gradient is itself a graph (double backprop).
    for dtype in (np.float16, np.float32, np.float64):
        x = C.Variable(np.ones((2, 2), dtype))
        ys = DF.allgather(comm, x)
        assert all(y.dtype == dtype for y in ys)
        C.backward(list(ys), [C.Variable(np.ones((2, 2), dtype)) for _ in range(n)],
                   enable_double_backprop=True)
        assert x.grad.dtype == dtype and (x.grad == n).all()
        assert x.grad_var.creator is not None


def check_pseudo_connect(comm):
    d = C.Variable(np.empty((0,), np.float32))
    x = C.Variable(np.array([1.0, 2.0]))
    y, = DF.pseudo_connect(d, x)
    F.sum(y * y).backward()
    assert_array_equal(x.grad, [2.0, 4.0])
    assert d.grad.shape == (0,)


def check_multi_node_batch_normalization(comm):
    r, n = comm.rank, comm.size
    rng = np.random.RandomState(0)
    full = rng.randn(4 * n, 3, 2)
    mine = full[4 * r:4 * r + 4]
    gamma, beta = rng.rand(3) + 0.5, rng.randn(3)
    rm, rv = np.zeros(3), np.ones(3)
    y = DF.multi_node_batch_normalization(mine, gamma, beta, comm, running_mean=rm,
                                          running_var=rv)
    rm2, rv2 = np.zeros(3), np.ones(3)
    ref = F.batch_normalization(full, gamma, beta, running_mean=rm2, running_var=rv2)
    assert_allclose(y.array, ref.array[4 * r:4 * r + 4], atol=1e-10)
    assert_allclose(rm, rm2, atol=1e-12)
    assert_allclose(rv, rv2, atol=1e-12)

    def f(x, g, b):
        return DF.multi_node_batch_normalization(x, g, b, comm)

    args = [mine, gamma, beta]
    _harness.check_backward(comm, f, args, eps=1e-4, atol=1e-6, rtol=1e-4)
    _harness.check_double_backward(comm, f, args, eps=1e-4, atol=1e-6, rtol=1e-4)
    y16 = DF.multi_node_batch_normalization(mine.astype(np.float16), gamma.astype(np.float16),
                                            beta.astype(np.float16), comm)
    assert y16.dtype == np.float16
    assert_allclose(y16.array, ref.array[4 * r:4 * r + 4], atol=2e-2)


def check_mnbn_link_and_model(comm):
    r, n = comm.rank, comm.size
    rng = np.random.RandomState(1)
    full = rng.randn(3 * n, 4).astype(np.float32)
    model = C.Sequential(L.Linear(4, 4), L.BatchNormalization(4), F.relu, L.Linear(4, 2))
    comm.bcast_data(model)
    mn = D.links.create_mnbn_model(model, comm)
    assert isinstance(mn[1], D.links.MultiNodeBatchNormalization)
    assert isinstance(model[1], L.BatchNormalization)            # the original is kept
    y = mn(full[3 * r:3 * r + 3])
    ref = model(full)
    assert_allclose(y.array, ref.array[3 * r:3 * r + 3], rtol=1e-4, atol=1e-5)
    assert_allclose(mn[1].avg_mean, model[1].avg_mean, rtol=1e-5, atol=1e-6)
    F.sum(y * y).backward()
    F.sum(ref * ref).backward()
    mean_grad = comm.allreduce(mn[0].W.grad)
    assert_allclose(mean_grad, model[0].W.grad, rtol=1e-4, atol=1e-5)
    with C.using_config('train', False):
        assert_allclose(mn(full[:2]).array, model(full[:2]).array, rtol=1e-4, atol=1e-5)
    import copy
    twin = copy.deepcopy(mn)
    assert twin[1].comm is comm and twin[1] is not mn[1]


def check_multi_node_chain_list(comm):
    if comm.size != 2:
        return
    np.random.seed(0)
    l1, l2, l3 = L.Linear(3, 4), L.Linear(4, 4), L.Linear(4, 2)
    x = np.random.RandomState(5).randn(5, 3)
    for link in (l1, l2, l3):
        for p in link.params():
            p.array = p.array.astype(np.float64)
        comm.bcast_data(link)
        link.cleargrads()

    if comm.rank == 0:
        model = D.MultiNodeChainList(comm)
        model.add_link(l1, rank_in=None, rank_out=1)
        model.add_link(l3, rank_in=1, rank_out=None)
        y = model(x)
        F.sum(y * y).backward()
    else:
        model = D.MultiNodeChainList(comm)
        model.add_link(l2, rank_in=0, rank_out=0)
        delegate = model()
        delegate.backward()
    grads = dict(comm.allreduce_obj([(k, p.grad) for k, p in (
        [('l1', l1.W), ('l3', l3.W)] if comm.rank == 0 else [('l2', l2.W)])]))
    ref = [link.copy('copy') for link in (l1, l2, l3)]
    for link in ref:
        link.cleargrads()
    yr = ref[2](ref[1](ref[0](x)))
    F.sum(yr * yr).backward()
    if comm.rank == 0:
        assert_allclose(y.array, yr.array, rtol=1e-12)
    for k, link in zip(('l1', 'l2', 'l3'), ref):
        assert_allclose(grads[k], link.W.grad, rtol=1e-10)
    try:
        bad = D.MultiNodeChainList(comm)
        bad.add_link(L.Linear(2, 2), rank_out=None)
        bad.add_link(L.Linear(2, 2), rank_out=None)
    except ValueError as e:
        assert 'only one component' in str(e)
    else:
        raise AssertionError('two model outputs were accepted')


def check_multi_node_n_step_rnn(comm):
    if comm.size != 2:
        return
    np.random.seed(2)
    enc = L.NStepLSTM(1, 3, 4, 0.0)
    dec = L.NStepLSTM(1, 4, 4, 0.0)
    for link in (enc, dec):
        comm.bcast_data(link)
        link.cleargrads()
    rng = np.random.RandomState(3)
    xs = [rng.randn(k + 2, 3).astype(np.float32) for k in range(2)]
    zs = [rng.randn(k + 1, 4).astype(np.float32) for k in range(2)]
    if comm.rank == 0:
        m = D.links.create_multi_node_n_step_rnn(enc, comm, rank_out=1)
        hy, cy, ys, delegate = m(xs)
        delegate.backward()
        grad = comm.recv_obj(1)
        ref_enc, ref_dec = enc.copy('copy'), dec.copy('copy')
        ref_enc.cleargrads()
        ref_dec.cleargrads()
        h, c, _ = ref_enc(None, None, xs)
        _, _, out = ref_dec(h, c, zs)
        F.sum(F.concat(out, axis=0) ** 2).backward()
        assert_allclose(enc.lstm0.w0.grad if hasattr(enc, 'lstm0') else
                        list(enc.params())[0].grad, list(ref_enc.params())[0].grad,
                        rtol=1e-4, atol=1e-6)
        assert_allclose(grad, list(ref_dec.params())[0].grad, rtol=1e-4, atol=1e-6)
    else:
        m = D.links.MultiNodeNStepRNN(dec, comm, rank_in=0)
        hy, cy, ys, delegate = m(zs)
        assert delegate is None
        F.sum(F.concat(ys, axis=0) ** 2).backward()
        comm.send_obj(list(dec.params())[0].grad, 0)
    try:
        D.links.create_multi_node_n_step_rnn(L.Linear(2, 2), comm)
    except ValueError as e:
        assert 'NStep' in str(e)


if __name__ == '__main__':
    communicator = D.create_communicator('naive')
    _harness.run(communicator, [
        check_ranks, check_array_collectives, check_object_collectives, check_errors,
        check_mean_grad, check_ring_reduction, check_sharded_update_sizes, check_bcast_data,
        check_scatter_dataset, check_iterators,
        check_allreduce_persistent, check_function_send_recv, check_function_collectives,
        check_pseudo_connect, check_multi_node_batch_normalization, check_mnbn_link_and_model,
        check_multi_node_chain_list, check_multi_node_n_step_rnn,
    ])
