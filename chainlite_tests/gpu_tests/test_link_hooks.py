"""Link hooks on a GPU array module: the same outputs, gradients and state as on the CPU.

Each hooked link is built on the CPU, deep-copied and sent to the GPU (the strict CuPy
stand-in, or real CuPy under ``CHAINLITE_TEST_GPU=1``), or gets its hook once on the GPU;
forward and backward run on both, and everything the hook adds lives on the GPU.
"""
import copy
import os

import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite.backends import cuda
from chainlite.link_hooks import SpectralNormalization
from chainlite.link_hooks import TimerHook
from chainlite.link_hooks import WeightStandardization

REAL_GPU = os.environ.get('CHAINLITE_TEST_GPU') == '1'
_TOL = {numpy.float64: (1e-7, 1e-9), numpy.float32: (1e-4, 1e-5), numpy.float16: (2e-2, 2e-3)}

LINKS = {
    'Linear': (lambda: L.Linear(3, 4), (2, 3)),
    'Linear(lazy)': (lambda: L.Linear(None, 4), (2, 3)),
    'Convolution2D': (lambda: L.Convolution2D(2, 3, 2), (2, 2, 3, 3)),
    'Deconvolution2D': (lambda: L.Deconvolution2D(2, 3, 2), (2, 2, 3, 3)),
}
HOOKS = {
    'SpectralNormalization': lambda: SpectralNormalization(n_power_iteration=2),
    'SpectralNormalization(gamma)': lambda: SpectralNormalization(use_gamma=True, factor=2.0),
    'WeightStandardization': lambda: WeightStandardization(),
}


def _run(link, x, xp):
    numpy.random.seed(3)  # (a lazily prepared hook draws its u here)
    link.cleargrads()
    x = chainlite.Variable(xp.asarray(x))
    y = link(x)
    F.sum(y * y).backward()
    return y.array, x.grad, {path: (p.array, p.grad) for path, p in link.namedparams()}


def _close(gpu, cpu, dtype, what):
    assert gpu.dtype == cpu.dtype and gpu.shape == cpu.shape, what
    rtol, atol = _TOL[dtype]
    numpy.testing.assert_allclose(cuda.to_cpu(gpu), cpu, rtol=rtol, atol=atol, err_msg=what)


@pytest.mark.parametrize('dtype', [numpy.float64, numpy.float32, numpy.float16],
                         ids=lambda d: numpy.dtype(d).name)
@pytest.mark.parametrize('hook', sorted(HOOKS))
@pytest.mark.parametrize('name', sorted(LINKS))
@pytest.mark.parametrize('hooked_on', ['cpu', 'gpu'])
def test_weight_hook_on_gpu_matches_cpu(name, hook, hooked_on, dtype, gpu_xp):
    make, shape = LINKS[name]
    numpy.random.seed(0)
    cpu_link = make().astype(dtype)
    if hooked_on == 'cpu':  # the hook's state is made on the CPU, then moved
        numpy.random.seed(1)
        cpu_link.add_hook(HOOKS[hook]())
        gpu_link = copy.deepcopy(cpu_link).to_device('@cupy:0')
    else:  # the hook is added to the link on the GPU: its state is made there
        gpu_link = copy.deepcopy(cpu_link).to_device('@cupy:0')
        numpy.random.seed(1)
        cpu_link.add_hook(HOOKS[hook]())
        numpy.random.seed(1)
        gpu_link.add_hook(HOOKS[hook]())
    x = numpy.random.default_rng(2).uniform(-1, 1, shape).astype(dtype)
    # On real CuPy, a u drawn on the GPU comes from CuPy's generator: not the CPU's numbers.
    drawn_on_gpu = REAL_GPU and hook.startswith('Spectral') and (
        hooked_on == 'gpu' or name.endswith('(lazy)'))
    for step in range(2):  # the second step starts from the u the first one updated
        cpu = _run(cpu_link, x, numpy)
        gpu = _run(gpu_link, x, gpu_xp)
        if drawn_on_gpu:
            continue
        _close(gpu[0], cpu[0], dtype, 'y, step %d' % step)
        _close(gpu[1], cpu[1], dtype, 'gx, step %d' % step)
        assert sorted(gpu[2]) == sorted(cpu[2])
        for path, (c, cg) in cpu[2].items():
            g, gg = gpu[2][path]
            assert isinstance(g, gpu_xp.ndarray) and isinstance(gg, gpu_xp.ndarray), path
            _close(g, c, dtype, path)
            _close(gg, cg, dtype, 'the gradient of ' + path)
    if hook.startswith('Spectral'):
        assert isinstance(gpu_link.W_u, gpu_xp.ndarray) and gpu_link.W_u.dtype == dtype
        assert isinstance(gpu_link.local_link_hooks[hook.split('(')[0]].v, gpu_xp.ndarray)
        if not drawn_on_gpu:
            _close(gpu_link.W_u, cpu_link.W_u, dtype, 'W_u')
        if 'gamma' in hook:
            assert gpu_link.gamma.device == gpu_link.device
    back = gpu_link.to_device('@numpy')
    assert all(isinstance(p.array, numpy.ndarray) for p in back.params())
    if hook.startswith('Spectral'):
        assert isinstance(back.W_u, numpy.ndarray)
        if not drawn_on_gpu:
            _close(back.W_u, cpu_link.W_u, dtype, 'W_u on the CPU again')


def test_spectral_normalization_vectors_on_gpu(gpu_xp):
    from chainlite.link_hooks import spectral_normalization as sn
    W = numpy.random.default_rng(0).standard_normal((4, 3))
    u = numpy.random.default_rng(1).standard_normal(4)
    cpu_u, cpu_v = sn.update_approximate_vectors(W, u, 3, 1e-12)
    gpu_u, gpu_v = sn.update_approximate_vectors(gpu_xp.asarray(W), gpu_xp.asarray(u), 3,
                                                 1e-12)
    assert isinstance(gpu_u, gpu_xp.ndarray) and isinstance(gpu_v, gpu_xp.ndarray)
    numpy.testing.assert_allclose(gpu_u.get(), cpu_u, rtol=1e-12)
    numpy.testing.assert_allclose(gpu_v.get(), cpu_v, rtol=1e-12)
    sigma = sn.calculate_max_singular_value(gpu_xp.asarray(W), gpu_u, gpu_v)
    assert isinstance(sigma.array, gpu_xp.ndarray)
    numpy.testing.assert_allclose(float(sigma.array), numpy.linalg.svd(W)[1][0], rtol=1e-3)


def test_timer_hook_waits_for_the_gpu(gpu_xp, monkeypatch):
    synchronized = []
    device_type = type(gpu_xp.cuda.Device(0))
    if not REAL_GPU:
        monkeypatch.setattr(device_type, 'synchronize', lambda self: synchronized.append(self.id),
                            raising=True)
    last = gpu_xp.cuda.runtime.getDeviceCount() - 1  # (1 on the stand-in)
    model = chainlite.Sequential(L.Linear(3, 4), F.relu, L.Linear(4, 2)).to_device(last)
    x = model.device.send(numpy.ones((2, 3), numpy.float32))
    with TimerHook() as hook:
        with model.device:
            y = model(x)
    assert isinstance(y.array, gpu_xp.ndarray)
    summary = hook.summary()
    assert summary['Linear']['occurrence'] == 2 and summary['Sequential']['occurrence'] == 1
    assert hook.total_time() > 0
    if not REAL_GPU:  # before and after each of the three forwards, on the links' GPU
        assert synchronized == [last] * 6
