"""Chainer 7's device API on a GPU array module: ``cuda.*``, devices, Variables, and the
stand-in's own strictness (what makes the GPU tests worth running without a GPU)."""
import subprocess
import sys
import warnings

import numpy
import pytest

import chainlite
from chainlite import backend
from chainlite.backends import cuda


def test_cuda_is_available_with_the_gpu_module(gpu_xp):
    assert cuda.available is True
    assert cuda.cupy is gpu_xp
    assert cuda.ndarray is gpu_xp.ndarray
    cuda.check_cuda_available()  # does not raise


def test_to_gpu_and_to_cpu_round_trip(gpu_xp):
    a = numpy.arange(6.0, dtype=numpy.float32).reshape(2, 3)
    g = cuda.to_gpu(a)
    assert isinstance(g, gpu_xp.ndarray) and g.dtype == numpy.float32
    assert g.device.id == 0
    back = cuda.to_cpu(g)
    assert isinstance(back, numpy.ndarray)
    numpy.testing.assert_array_equal(back, a)
    assert cuda.to_gpu(g) is g  # already on the current device
    assert cuda.to_gpu(None) is None and cuda.to_cpu(None) is None
    pair = cuda.to_gpu([a, a])
    assert isinstance(pair, list) and all(isinstance(p, gpu_xp.ndarray) for p in pair)
    assert isinstance(cuda.to_cpu((g, g)), tuple)
    assert isinstance(cuda.to_gpu(numpy.float32(2)), gpu_xp.ndarray)


def test_to_gpu_to_another_device_copies(gpu_xp):
    g0 = cuda.to_gpu(numpy.ones(3))
    g1 = cuda.to_gpu(g0, device=1)
    assert g1.device.id == 1 and g0.device.id == 0
    g1[0] = 5
    assert float(g0[0]) == 1.0  # a copy, not a view
    with pytest.raises(TypeError, match='to_gpu'):
        cuda.to_gpu('text')


def test_get_array_module_sees_arrays_and_variables(gpu_xp):
    g = gpu_xp.zeros(2)
    assert cuda.get_array_module(g) is gpu_xp
    assert backend.get_array_module(numpy.zeros(2), g) is gpu_xp
    assert backend.get_array_module(chainlite.Variable(g)) is gpu_xp
    assert backend.get_array_module(numpy.zeros(2), None, 3.0) is numpy
    assert backend.get_array_module(chainlite.Variable(numpy.zeros(2))) is numpy


def test_devices_from_ids_and_arrays(gpu_xp):
    g = cuda.to_gpu(numpy.zeros(2), device=1)
    assert cuda.get_device_from_array(g).id == 1
    assert cuda.get_device_from_array(numpy.zeros(2)) is cuda.DummyDevice
    assert cuda.get_device_from_array(chainlite.Variable(g)).id == 1
    assert cuda.get_device_from_id(1).id == 1
    assert cuda.get_device_from_id(None) is cuda.DummyDevice
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        assert cuda.get_device(1).id == 1
        assert cuda.get_device(g).id == 1
    assert isinstance(cuda.Device(0), gpu_xp.cuda.Device)


def test_using_device_makes_the_arrays_device_current(gpu_xp):
    g = cuda.to_gpu(numpy.zeros(2), device=1)
    assert gpu_xp.cuda.get_device_id() == 0
    with cuda.using_device(g):
        assert gpu_xp.cuda.get_device_id() == 1
        assert gpu_xp.zeros(1).device.id == 1
    assert gpu_xp.cuda.get_device_id() == 0
    with cuda.using_device(numpy.zeros(1)):  # no GPU array: nothing changes
        assert gpu_xp.cuda.get_device_id() == 0
    with chainlite.using_device('@cupy:1'):
        assert gpu_xp.cuda.get_device_id() == 1
    assert gpu_xp.cuda.get_device_id() == 0


def test_get_device_names_the_gpu(gpu_xp):
    dev = chainlite.get_device('@cupy:1')
    assert isinstance(dev, backend.GpuDevice)
    assert str(dev) == '@cupy:1' and dev.xp is gpu_xp and dev.device.id == 1
    assert chainlite.get_device(1) == dev == chainlite.get_device('1')
    assert chainlite.get_device(gpu_xp.cuda.Device(1)) == dev
    assert chainlite.get_device(-1) == chainlite.get_device('@numpy')
    assert hash(dev) == hash(chainlite.get_device('@cupy:1'))
    with pytest.raises(ValueError, match='@cupy:N'):
        chainlite.get_device('@cupy:x')
    g = dev.send(numpy.arange(3.0))
    assert isinstance(g, gpu_xp.ndarray) and g.device.id == 1
    assert dev.is_array_supported(g) and not dev.is_array_supported(numpy.zeros(1))
    assert backend.get_device_from_array(g) == dev
    assert isinstance(backend.CpuDevice().send(g), numpy.ndarray)
    assert backend.GpuDevice.from_array(numpy.zeros(1)) is None
    assert backend.GpuDevice.from_array(g) == dev


def test_copyto_crosses_devices(gpu_xp):
    dst = gpu_xp.zeros(3)
    backend.copyto(dst, numpy.array([1.0, 2.0, 3.0]))
    numpy.testing.assert_array_equal(dst.get(), [1, 2, 3])
    host = numpy.zeros(3)
    backend.copyto(host, dst)
    numpy.testing.assert_array_equal(host, [1, 2, 3])
    other = cuda.to_gpu(numpy.full(3, 7.0), device=1)
    backend.copyto(dst, other)
    numpy.testing.assert_array_equal(dst.get(), [7, 7, 7])
    with pytest.raises(TypeError, match='copyto'):
        backend.copyto([0, 0], dst)


def test_cuda_copy(gpu_xp):
    g = gpu_xp.arange(3.0)
    c = cuda.copy(g, out_device=1)
    assert c.device.id == 1
    numpy.testing.assert_array_equal(c.get(), [0, 1, 2])
    out = gpu_xp.zeros(3)
    assert cuda.copy(g, out=out) is out
    numpy.testing.assert_array_equal(out.get(), [0, 1, 2])
    with pytest.raises(TypeError, match='CuPy array'):
        cuda.copy(numpy.zeros(2))


def test_variable_moves_with_its_gradient(gpu_xp):
    v = chainlite.Variable(numpy.arange(3.0))
    v.grad = numpy.ones(3)
    v.to_gpu()
    assert isinstance(v.array, gpu_xp.ndarray) and isinstance(v.grad, gpu_xp.ndarray)
    assert v.xp is gpu_xp and str(v.device) == '@cupy:0'
    v.to_device('@cupy:1')
    assert v.array.device.id == 1 and v.grad.device.id == 1
    v.to_cpu()
    assert isinstance(v.array, numpy.ndarray) and isinstance(v.grad, numpy.ndarray)
    numpy.testing.assert_array_equal(v.grad, numpy.ones(3))
    v.to_gpu(1)
    assert v.array.device.id == 1
    with pytest.raises(TypeError, match='different devices'):
        v.grad = numpy.ones(3)
    assert 'CUDA Device 1' in v.debug_print()
    assert repr(v) == 'variable([0., 1., 2.])'


def test_a_backward_pass_stays_on_the_gpu(gpu_xp):
    x = chainlite.Variable(gpu_xp.asarray(numpy.array([[1.0, -2.0], [3.0, 0.5]])))
    y = chainlite.functions.sum(chainlite.functions.relu(x) * x + 1.0)
    y.backward()
    assert isinstance(y.array, gpu_xp.ndarray) and isinstance(x.grad, gpu_xp.ndarray)
    numpy.testing.assert_array_equal(x.grad.get(), [[2.0, 0.0], [6.0, 1.0]])


def test_parameter_sent_before_it_has_data_is_created_on_the_gpu(gpu_xp):
    p = chainlite.Parameter(chainlite.initializers.Constant(2.0))
    p.to_device('@cupy:1')
    p.initialize((2, 3))
    assert isinstance(p.array, gpu_xp.ndarray) and p.array.device.id == 1
    numpy.testing.assert_array_equal(p.array.get(), numpy.full((2, 3), 2.0, numpy.float32))


def test_memoize_keeps_one_cache_per_device(gpu_xp):
    calls = []

    @cuda.memoize(for_each_device=True)
    def kernel(n):
        calls.append((n, gpu_xp.cuda.get_device_id()))
        return len(calls)

    assert kernel(3) == kernel(3) == 1
    with gpu_xp.cuda.Device(1):
        assert kernel(3) == 2
    assert calls == [(3, 0), (3, 1)]


def test_kernels_are_created_once_and_need_a_real_gpu_to_run(gpu_xp):
    k = cuda.elementwise('T x', 'T y', 'y = x * 2', 'twice')
    assert k is cuda.elementwise('T x', 'T y', 'y = x * 2', 'twice')
    r = cuda.reduce('T x', 'T y', 'x', 'a + b', 'y = a', '0', 'total')
    raw = cuda.raw('extern "C" __global__ void f() {}', 'f')
    assert k.args[-1] == 'twice' and r.args[-1] == 'total' and raw.args[1] == 'f'
    with pytest.raises(RuntimeError, match='needs a real GPU'):
        k(gpu_xp.zeros(2))


def test_cudnn_is_not_used_where_cupy_has_none(gpu_xp):
    assert cuda.cudnn_enabled is False
    assert cuda.should_use_cudnn('>=auto') is False
    assert cuda.should_use_cudnn('==always') is False
    with pytest.raises(ValueError, match='invalid cuDNN use level'):
        cuda.should_use_cudnn('sometimes')
    assert cuda.should_use_cudnn_tensor_core(numpy.float16) is False


def test_fuse_is_the_array_modules(gpu_xp):
    def f(x):
        return x * 2
    assert cuda.fuse(f)(gpu_xp.ones(2)).get().tolist() == [2.0, 2.0]


def test_the_state_is_restored_after_the_fixture():
    # No GPU module outside a gpu_xp test (CuPy may be installed, but there is no GPU here,
    # or the test runs on a real GPU only under CHAINLITE_TEST_GPU=1).
    import os
    if os.environ.get('CHAINLITE_TEST_GPU') == '1':
        pytest.skip('a real GPU is in use')
    assert cuda.available is False
    with pytest.raises(RuntimeError, match='CUDA is not available: '):
        chainlite.get_device('@cupy:0')
    assert backend.get_array_module(numpy.zeros(1)) is numpy


# -- the stand-in is strict, as CuPy is ---------------------------------------------------------

def test_stand_in_refuses_implicit_conversion_and_mixing(gpu_xp):
    g = gpu_xp.arange(3.0)
    with pytest.raises(TypeError, match='Implicit conversion'):
        numpy.asarray(g)
    with pytest.raises(TypeError, match='Unsupported type'):
        g + numpy.ones(3)
    with pytest.raises(TypeError, match='Unsupported type'):
        numpy.ones(3) * g
    with pytest.raises(TypeError, match='only cupy arrays'):
        gpu_xp.concatenate([g, numpy.ones(3)])
    with pytest.raises(TypeError, match='Unsupported type'):
        g[...] = numpy.ones(3)
    assert isinstance(g + numpy.float32(1), gpu_xp.ndarray)  # NumPy scalars are fine
    assert isinstance(numpy.sum(g), gpu_xp.ndarray)  # reductions give 0-d device arrays
    assert isinstance(g[0], gpu_xp.ndarray)
    assert float(numpy.sum(g)) == 3.0
    with pytest.raises(TypeError):
        hash(g)


def test_stand_in_has_cupys_names_only(gpu_xp):
    import cupy
    for name in ('insert', 'spacing', 'nditer'):  # NumPy has them, CuPy does not
        assert hasattr(numpy, name) and not hasattr(cupy, name)
        assert not hasattr(gpu_xp, name)
    with pytest.raises(TypeError):
        numpy.insert(gpu_xp.zeros(2), 0, 1.0)  # NumPy's dispatch finds no CuPy function
    for name in ('zeros', 'matmul', 'einsum', 'asnumpy', 'get_array_module'):
        assert hasattr(gpu_xp, name)
    assert gpu_xp.random.rand is not numpy.random.rand


def test_stand_in_keeps_cupys_signatures(gpu_xp):
    import inspect

    import cupy
    assert inspect.signature(gpu_xp.sum) == inspect.signature(cupy.sum)
    with pytest.raises(TypeError, match='cupy.sum'):
        gpu_xp.sum(gpu_xp.ones(2), where=True)  # NumPy's keyword, not CuPy's


# -- without a GPU ---------------------------------------------------------------------------

def _run(code):
    return subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                          timeout=120)


def test_without_cupy_a_gpu_request_names_the_package():
    code = ('import sys; sys.modules["cupy"] = None\n'
            'import chainlite\n'
            'from chainlite.backends import cuda\n'
            'assert cuda.available is False\n'
            'try:\n'
            '    chainlite.get_device("@cupy:0")\n'
            'except RuntimeError as e:\n'
            '    print(e)\n')
    out = _run(code)
    assert out.returncode == 0, out.stderr
    assert 'CuPy is not installed' in out.stdout
    assert 'chainlite-dl[cuda12]' in out.stdout


def test_cupy_without_a_gpu_says_what_is_missing():
    pytest.importorskip('cupy')
    code = ('import chainlite\n'
            'from chainlite.backends import cuda\n'
            'import cupy\n'
            'try:\n'
            '    n = cupy.cuda.runtime.getDeviceCount()\n'
            'except Exception:\n'
            '    n = 0\n'
            'if n:\n'
            '    print("HAS GPU")\n'
            'else:\n'
            '    assert cuda.available is False\n'
            '    try:\n'
            '        chainlite.Variable(numpy.zeros(1)).to_gpu()\n'
            '    except RuntimeError as e:\n'
            '        print(e)\n')
    out = _run('import numpy\n' + code)
    assert out.returncode == 0, out.stderr
    if 'HAS GPU' not in out.stdout:
        assert 'is installed but' in out.stdout and 'GPU' in out.stdout


def test_import_chainlite_does_not_import_cupy():
    out = _run('import sys, chainlite, chainlite.functions, chainlite.links\n'
               'print("cupy" in sys.modules)')
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == 'False'


def test_backward_of_a_loss_on_another_gpu_than_the_current_one(gpu_xp):
    x = chainlite.Variable(cuda.to_gpu(numpy.array([1.0, -2.0, 3.0]), device=1))
    loss = chainlite.functions.sum(x * x)
    assert gpu_xp.cuda.get_device_id() == 0
    loss.backward()  # the seed, the backward and the sums run on GPU 1
    assert x.grad.device.id == 1 and gpu_xp.cuda.get_device_id() == 0
    numpy.testing.assert_array_equal(x.grad.get(), [2.0, -4.0, 6.0])
