"""static_graph with GPU arrays: define-by-run on every call, the same results as the CPU's.

A static chain called with GPU inputs (or living on a GPU) is not recorded: the replay's
buffers and fused steps are NumPy's, so it runs define-by-run there (documented in
``static_graph``). The CPU twin records and replays; both give the same outputs and gradients.
"""
import copy
import warnings

import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite.backends import cuda
from chainlite.graph_optimizations.static_graph import static_graph


class MLP(chainlite.Chain):

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(3, 5)
            self.l2 = L.Linear(5, 2)

    @static_graph
    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


class TwoInputs(chainlite.Chain):

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(3, 2)

    @static_graph
    def forward(self, xs, scale):
        return [F.tanh(self.l1(x)) * scale for x in xs]


def _schedules(chain):
    mgr = chain.__dict__.get('schedule_manager')
    return [] if mgr is None else [s for ss in mgr.schedules.values() for s in ss]


def _step(model, x, t):
    model.cleargrads()
    y = model(x)
    loss = F.sum((y - t) ** 2)
    loss.backward()
    return [y.array, loss.array] + [p.grad for _, p in sorted(model.namedparams())]


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_static_chain_on_gpu_matches_the_cpu(gpu_xp, dtype):
    numpy.random.seed(0)
    cpu = MLP()
    cpu.astype(dtype)
    gpu = copy.deepcopy(cpu)
    gpu.to_device('@cupy:0')
    rng = numpy.random.default_rng(1)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        for _ in range(3):
            x = rng.uniform(-1, 1, (4, 3)).astype(dtype)
            t = rng.uniform(-1, 1, (4, 2)).astype(dtype)
            expected = _step(cpu, x, t)
            got = _step(gpu, chainlite.Variable(gpu_xp.asarray(x)), gpu_xp.asarray(t))
            for e, g in zip(expected, got):
                assert isinstance(g, gpu_xp.ndarray) and g.dtype == e.dtype
                # (float tolerances: real CuPy's products round differently)
                numpy.testing.assert_allclose(cuda.to_cpu(g), e, rtol=1e-4, atol=1e-5)
    assert len(_schedules(cpu)) == 1  # recorded once, replayed twice
    assert _schedules(gpu) == []  # define-by-run on the GPU


def test_static_chain_with_nested_gpu_inputs(gpu_xp):
    cpu = TwoInputs()
    gpu = copy.deepcopy(cpu)
    gpu.to_device('@cupy:0')
    xs = [numpy.full((2, 3), v, numpy.float32) for v in (0.1, -0.2)]
    for _ in range(2):
        expected = cpu(xs, 2.0)
        got = gpu([gpu_xp.asarray(x) for x in xs], 2.0)
    for e, g in zip(expected, got):
        assert isinstance(g.array, gpu_xp.ndarray)
        numpy.testing.assert_allclose(cuda.to_cpu(g.array), e.array, rtol=1e-4, atol=1e-5)
    assert _schedules(cpu) and _schedules(gpu) == []


def test_static_chain_keeps_its_cpu_schedule_across_devices(gpu_xp):
    model = MLP()
    x = numpy.ones((2, 3), numpy.float32)
    y_cpu = model(x).array
    assert len(_schedules(model)) == 1
    model.to_device('@cupy:0')
    y_gpu = model(gpu_xp.asarray(x)).array
    assert isinstance(y_gpu, gpu_xp.ndarray)
    numpy.testing.assert_allclose(cuda.to_cpu(y_gpu), y_cpu, rtol=1e-4, atol=1e-5)
    model.to_device('@numpy')
    # Back on the CPU the recorded schedule replays (its parameters are NumPy's again).
    numpy.testing.assert_array_equal(model(x).array, y_cpu)
