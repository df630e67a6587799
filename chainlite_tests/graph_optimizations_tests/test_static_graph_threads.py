"""static_graph under threads: concurrent calls of one static chain give define-by-run's results."""
import sys
import threading

import numpy as np
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L

N_THREADS = 4
N_CALLS = 25


class Net(chainlite.Chain):

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(32, 64)
            self.l2 = L.Linear(64, 64)
            self.l3 = L.Linear(64, 3)

    def forward(self, x):
        h = F.relu(self.l1(x))
        h = F.tanh(self.l2(h)) * 0.5 + h
        return self.l3(h)


class StaticNet(Net):
    forward = chainlite.static_graph(Net.forward)


class NetBN(Net):
    """Batch normalization (in test mode here) has no array-level backward: the replay's
    backward walks the graph recorded with its schedule."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.bn = L.BatchNormalization(64, dtype=np.float64)

    def forward(self, x):
        return self.l3(F.tanh(self.l2(F.relu(self.bn(self.l1(x))))))


class StaticNetBN(NetBN):
    forward = chainlite.static_graph(NetBN.forward)


def _model(cls):
    np.random.seed(7)
    model = cls()
    for p in model.params():
        p.array = p.array.astype(np.float64)
    for link in model.links():
        if isinstance(link, L.BatchNormalization):
            link.avg_mean[...] = np.random.randn(*link.avg_mean.shape)
            link.avg_var[...] = np.random.rand(*link.avg_var.shape) + 0.5
    return model


def _inputs():
    rs = np.random.RandomState(1)
    return [[rs.randn(16, 32) for _ in range(N_CALLS)] for _ in range(N_THREADS)]


def _step(model, x, backward):
    """The outputs of one call and, with ``backward``, the gradients of x and parameters."""
    if not backward:
        with chainlite.no_backprop_mode():
            return [model(x).array]
    xv = chainlite.Variable(x)
    with chainlite.using_config('train', not isinstance(model, NetBN)):
        y = model(xv)
    loss = F.sum(y * y)
    params = [p for _, p in sorted(model.namedparams())]
    grads = chainlite.grad([loss], [xv] + params)
    return [y.array, loss.array] + [g.array for g in grads]


def _run_threads(model, inputs, backward):
    results = [None] * N_THREADS
    errors = []
    barrier = threading.Barrier(N_THREADS)

    def work(i):
        try:
            barrier.wait(timeout=10)
            results[i] = [_step(model, x, backward) for x in inputs[i]]
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,), daemon=True)
               for i in range(N_THREADS)]
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
    finally:
        sys.setswitchinterval(old)
    assert not any(t.is_alive() for t in threads), 'a thread hung'
    if errors:
        raise errors[0]
    return results


@pytest.mark.parametrize('backward', [True, False])
@pytest.mark.parametrize('warm', [True, False])
@pytest.mark.parametrize('net', ['mlp', 'bn'])
def test_threads_match_define_by_run_bitwise(backward, warm, net):
    inputs = _inputs()
    dynamic, static = (Net, StaticNet) if net == 'mlp' else (NetBN, StaticNetBN)
    reference_model = _model(dynamic)
    reference = [[_step(reference_model, x, backward) for x in xs] for xs in inputs]
    model = _model(static)
    if warm:  # recorded by this thread first; otherwise the threads record concurrently
        _step(model, inputs[0][0], backward)
    got = _run_threads(model, inputs, backward)
    wrong = 0
    for ref_t, got_t in zip(reference, got):
        for ref_c, got_c in zip(ref_t, got_t):
            assert len(ref_c) == len(got_c)
            if not all(a.dtype == b.dtype and np.array_equal(a, b)
                       for a, b in zip(ref_c, got_c)):
                wrong += 1
    assert wrong == 0, '%d of %d calls differ from define-by-run' % (
        wrong, N_THREADS * N_CALLS)
    # Calls were replayed, not all run define-by-run, on arrays or walking the graph.
    schedules = [s for ss in model.schedule_manager.schedules.values() for s in ss]
    assert schedules
    if backward:
        assert all((s.back_ops is None) == (net == 'bn') for s in schedules)


def test_define_by_run_in_one_thread_while_another_records():
    # Ops a thread runs define-by-run while another thread records a schedule are not part
    # of that schedule.
    inputs = _inputs()
    model = _model(StaticNet)
    plain = _model(Net)
    reference = [plain(x).array for x in inputs[1]]
    stop = threading.Event()
    got = []

    def other():
        for x in inputs[1]:
            got.append(plain(x).array)
        stop.set()

    t = threading.Thread(target=other, daemon=True)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        t.start()
        k = 0
        while not stop.is_set() and k < 200:
            fresh = _model(StaticNet)  # each first call records
            x = inputs[0][k % N_CALLS]
            first = fresh(x).array
            assert np.array_equal(fresh(x).array, first)
            assert np.array_equal(first, model(x).array)
            k += 1
        t.join(timeout=30)
    finally:
        sys.setswitchinterval(old)
    assert not t.is_alive()
    assert len(got) == len(reference)
    for a, b in zip(reference, got):
        assert np.array_equal(a, b)


class Pausing(chainlite.Chain):
    """A static chain whose forward can stop half-way in one chosen thread."""

    def __init__(self):
        super().__init__()
        self.pause_thread = None
        self.paused = threading.Event()
        self.resume = threading.Event()
        with self.init_scope():
            self.l1 = L.Linear(32, 64)
            self.l2 = L.Linear(64, 64)
            self.l3 = L.Linear(64, 3)

    @chainlite.static_code
    def pause(self):
        if threading.get_ident() == self.pause_thread:
            self.paused.set()
            assert self.resume.wait(10)

    def forward(self, x):
        h = self.l2(F.relu(self.l1(x)))
        self.pause()  # half-way: a replay has filled its buffers up to here
        return self.l3(F.tanh(h))


class StaticPausing(Pausing):
    forward = chainlite.static_graph(Pausing.forward)


def _pausing(cls):
    model = _model(cls)
    reference = _model(Pausing)
    return model, lambda x, backward: _step(reference, x, backward)


def _in_thread(model, fn):
    """Runs fn in a thread that pauses in model's forward; returns (thread, results)."""
    out = []

    def work():
        model.pause_thread = threading.get_ident()
        try:
            out.append(fn())
        except BaseException as e:
            out.append(e)

    t = threading.Thread(target=work, daemon=True)
    t.start()
    assert model.paused.wait(10), 'the thread did not reach the pause'
    return t, out


def _finish(model, t, out):
    model.resume.set()
    t.join(timeout=10)
    assert not t.is_alive()
    if isinstance(out[0], BaseException):
        raise out[0]
    return out[0]


def _same(a, b):
    return len(a) == len(b) and all(
        u.dtype == v.dtype and np.array_equal(u, v) for u, v in zip(a, b))


@pytest.mark.parametrize('backward', [False, True])
def test_call_while_another_thread_is_half_way_through_a_replay(backward):
    # Thread A stops in the middle of a replay; the main thread calls the chain meanwhile.
    # Each gets its own results (the replay's buffers are not shared), and A's backward works.
    xa, xb = _inputs()[0][:2]
    model, reference = _pausing(StaticPausing)
    _step(model, xa, backward)  # recorded here
    t, out = _in_thread(model, lambda: _step(model, xa, backward))
    got_b = _step(model, xb, backward)
    got_a = _finish(model, t, out)
    assert _same(got_a, reference(xa, backward))
    assert _same(got_b, reference(xb, backward))


def test_define_by_run_while_another_thread_records():
    # Thread A stops in the middle of recording; the main thread runs the chain
    # define-by-run meanwhile and differentiates it after A finished.
    xa, xb = _inputs()[0][:2]
    model, reference = _pausing(StaticPausing)
    t, out = _in_thread(model, lambda: _step(model, xa, True))
    with chainlite.using_config('use_static_graph', False):
        xv = chainlite.Variable(xb)
        y = model(xv)
        loss = F.sum(y * y)
    got_a = _finish(model, t, out)
    params = [p for _, p in sorted(model.namedparams())]
    grads = chainlite.grad([loss], [xv] + params)
    assert all(g is not None for g in grads)
    assert _same([y.array, loss.array] + [g.array for g in grads], reference(xb, True))
    assert _same(got_a, reference(xa, True))
    assert _same(_step(model, xa, True), reference(xa, True))  # the schedule A recorded
