"""Function hooks and debug mode on GPU arrays (the CuPy stand-in, or real CuPy).

TimerHook times GPU functions with CUDA events (as Chainer), CUDAProfileHook opens NVTX ranges
and CupyMemoryProfileHook registers a memory hook with CuPy's pool where CuPy offers them (the
stand-in offers neither, and the hooks say so); PrintHook, MemoryHook and debug mode's NaN
checks take GPU arrays.
"""
import io
import re
import types

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import function_hooks
from chainlite.backends import cuda
from chainlite.function_hooks import cupy_memory_profile


def _loss(x):
    y = F.sum(F.exp(x) * 2)
    y.backward()
    return y


def _host_x():
    return numpy.arange(6.0, dtype=numpy.float32).reshape(2, 3) / 6


def test_timer_hook_uses_cuda_events_on_gpu_arrays(gpu_xp, monkeypatch):
    events = []
    event_class = gpu_xp.cuda.Event

    class CountingEvent(event_class):
        def record(self, stream=None):
            events.append('record')
            super().record(stream)

        def synchronize(self):
            events.append('synchronize')
            super().synchronize()

    monkeypatch.setattr(gpu_xp.cuda, 'Event', CountingEvent)
    cpu_hook = function_hooks.TimerHook()
    with cpu_hook:
        _loss(chainlite.Variable(_host_x()))
    assert events == []  # the CPU path keeps the host clock
    gpu_hook = function_hooks.TimerHook()
    with gpu_hook:
        y = _loss(chainlite.Variable(gpu_xp.asarray(_host_x())))
    assert isinstance(y.array, gpu_xp.ndarray)
    n_calls = len(gpu_hook.call_history)
    # Two events per call, the second waited for.
    assert events.count('record') == 2 * n_calls and events.count('synchronize') == n_calls
    assert [name for name, _ in gpu_hook.call_history] == \
        [name for name, _ in cpu_hook.call_history]
    assert all(t >= 0 for _, t in gpu_hook.call_history)
    assert gpu_hook.summary()['Exp']['occurrence'] == 2
    assert 0 < gpu_hook.total_time() <= sum(t for _, t in gpu_hook.call_history)
    out = io.StringIO()
    gpu_hook.print_report(file=out)
    assert out.getvalue().split()[:3] == ['FunctionName', 'ElapsedTime', 'Occurrence']


def test_cuda_profile_hook_opens_nvtx_ranges(gpu_xp, monkeypatch):
    if not hasattr(gpu_xp.cuda, 'nvtx'):
        with pytest.raises(RuntimeError, match='nvtx is required for CUDAProfileHook'):
            function_hooks.CUDAProfileHook()
    # Real CuPy's NVTX, recorded.
    ranges = []
    nvtx = types.SimpleNamespace(available=True, RangePush=ranges.append,
                                 RangePop=lambda: ranges.append('pop'))
    monkeypatch.setattr(gpu_xp.cuda, 'nvtx', nvtx, raising=False)
    with function_hooks.CUDAProfileHook():
        y = F.sum(F.exp(chainlite.Variable(gpu_xp.asarray(_host_x()))))
        y.backward()
    assert ranges[:2] == ['exp.forward', 'pop']
    assert 'exp.backward' in ranges and ranges.count('pop') == len(ranges) / 2
    monkeypatch.setattr(gpu_xp.cuda, 'nvtx', types.SimpleNamespace(available=False),
                        raising=False)
    with pytest.raises(RuntimeError, match='offers no NVTX'):
        function_hooks.CUDAProfileHook()


def test_cuda_hooks_without_a_gpu_say_why(gpu_xp):
    previous = cuda._install(None, 'no GPU in this test')
    try:
        for hook in (function_hooks.CUDAProfileHook, function_hooks.CupyMemoryProfileHook):
            with pytest.raises(RuntimeError, match='CUDA is not available: no GPU in this'):
                hook()
    finally:
        cuda._install(*previous)


def test_cupy_memory_profile_hook_registers_with_cupys_pool(gpu_xp, monkeypatch):
    if not hasattr(gpu_xp.cuda, 'memory_hook'):
        with pytest.raises(RuntimeError, match="needs CuPy's memory hooks"):
            function_hooks.CupyMemoryProfileHook()
    registered = []

    class PoolHook:
        # What CuPy's memory_hook.MemoryHook does: __enter__ registers the hook with the pool.
        def __enter__(self):
            registered.append(self)
            return self

        def __exit__(self, *exc):
            registered.remove(self)

    monkeypatch.setattr(gpu_xp.cuda, 'memory_hook', types.SimpleNamespace(MemoryHook=PoolHook),
                        raising=False)
    hook = function_hooks.CupyMemoryProfileHook()
    with hook:
        assert len(registered) == 1
        pool_hook = registered[0]
        assert isinstance(pool_hook, PoolHook)
        assert isinstance(pool_hook, cupy_memory_profile.CupyMemoryCumulativeHook)
        x = chainlite.Variable(gpu_xp.asarray(_host_x()))
        # The pool reports an allocation while exp runs (the stand-in's pool reports none).
        pool_hook.malloc_preprocess(mem_size=24, mem_ptr=0)
        pool_hook.alloc_preprocess(mem_size=512, mem_ptr=0)
        F.exp(x)
    assert registered == []
    names = [name for name, *_ in hook.call_history]
    assert names == ['Exp']
    assert hook.summary()['Exp']['occurrence'] == 1
    out = io.StringIO()
    hook.print_report(file=out)
    assert out.getvalue().split()[:4] == ['FunctionName', 'UsedBytes', 'AcquiredBytes',
                                          'Occurrence']


def test_print_hook_and_memory_hook_describe_gpu_arrays(gpu_xp):
    out_cpu, out_gpu = io.StringIO(), io.StringIO()
    with function_hooks.PrintHook(file=out_cpu):
        _loss(chainlite.Variable(_host_x()))
    memory = function_hooks.MemoryHook()
    with function_hooks.PrintHook(file=out_gpu), memory:
        _loss(chainlite.Variable(gpu_xp.asarray(_host_x())))
    text = out_gpu.getvalue()
    assert '- device: <CUDA Device 0>' in text
    assert 'backend: %s' % gpu_xp.ndarray in text
    # The same statistics as on the CPU (to float32 rounding: real CuPy sums in its order).
    def stats(out):
        return [float(v) for line in out.splitlines() if 'statistics' in line
                for v in re.findall(r'=(-?[0-9.e+-]+)', line)]

    assert stats(text) and stats(text) == pytest.approx(stats(out_cpu.getvalue()), rel=1e-5)
    assert memory.summary()['Exp']['used_bytes'] > 0


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_debug_mode_finds_nan_on_gpu_arrays(gpu_xp, dtype):
    x = chainlite.Variable(gpu_xp.asarray(numpy.array([-1.0, 2.0], dtype)))
    with chainlite.using_config('debug', True):
        with pytest.raises(chainlite.function_node.NonFiniteError,
                           match='NaN is detected on forward computation of log'):
            with numpy.errstate(invalid='ignore'):
                F.log(x)
        y = F.log(chainlite.Variable(gpu_xp.asarray(numpy.array([1.0, 2.0], dtype))))
    assert isinstance(y.array, gpu_xp.ndarray) and y.dtype == dtype
