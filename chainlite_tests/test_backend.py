"""Tests of chainlite.backend (devices, array modules) and chainlite.backends.cuda without CuPy."""
import numpy
import pytest

import chainlite
from chainlite import backend
from chainlite.backends import cuda


# --- get_array_module ----------------------------------------------------------------------


@pytest.mark.parametrize('args', [(), (numpy.zeros(2),), (numpy.float32(1),), (1.0, None),
                                  (numpy.zeros(1), numpy.ones(2))])
def test_get_array_module_is_numpy(args):
    assert backend.get_array_module(*args) is numpy


def test_get_array_module_of_variable():
    x = chainlite.Variable(numpy.zeros(2, numpy.float32))
    assert backend.get_array_module(x) is numpy
    assert x.xp is numpy


# --- get_device ----------------------------------------------------------------------------


@pytest.mark.parametrize('spec', [-1, numpy.int64(-1), '@numpy', 'native', 'native:0', numpy,
                                  backend.CpuDevice()])
def test_get_device_gives_cpu(spec):
    dev = chainlite.get_device(spec)
    assert isinstance(dev, backend.CpuDevice)
    assert dev == backend.CpuDevice()
    assert dev.xp is numpy


def test_get_device_returns_a_device_unchanged():
    dev = backend.CpuDevice()
    assert chainlite.get_device(dev) is dev


def test_get_device_is_exported():
    assert chainlite.get_device is backend.get_device


@pytest.mark.parametrize('spec', ['@cupy:0', '@cupy:1', 0, 1])
def test_get_device_gpu_raises_runtime_error(spec):
    with pytest.raises(RuntimeError, match='CUDA is not available'):
        chainlite.get_device(spec)


@pytest.mark.parametrize('spec', ['@tpu', 'numpy!'])
def test_get_device_unknown_string_raises_value_error(spec):
    with pytest.raises(ValueError):
        chainlite.get_device(spec)


@pytest.mark.parametrize('spec', [2.5, None, object()])
def test_get_device_bad_type_raises(spec):
    with pytest.raises((TypeError, ValueError)):
        chainlite.get_device(spec)


def test_get_device_from_array():
    assert isinstance(backend.get_device_from_array(numpy.zeros(1)), backend.CpuDevice)


# --- CpuDevice -----------------------------------------------------------------------------


def test_cpu_device_str_repr_and_equality():
    dev = backend.CpuDevice()
    assert str(dev) == '@numpy'
    assert dev.name == '@numpy'
    assert repr(dev) == '<CpuDevice (numpy)>'
    assert dev == chainlite.get_device('@numpy')
    assert hash(dev) == hash(backend.CpuDevice())
    assert dev != 'cpu'
    assert len({dev, backend.CpuDevice()}) == 1


def test_cpu_device_use_and_context():
    dev = backend.CpuDevice()
    assert dev.use() is None
    with dev as d:
        assert d is dev
    with backend.using_device('@numpy') as d:
        assert isinstance(d, backend.CpuDevice)


def test_cpu_device_send_array_is_identity():
    dev = backend.CpuDevice()
    a = numpy.arange(3.0)
    assert dev.send(a) is a
    assert dev.send(None) is None


def test_cpu_device_send_scalar():
    r = backend.CpuDevice().send(numpy.float32(2))
    assert isinstance(r, numpy.ndarray)
    assert r.dtype == numpy.float32
    assert r == 2


def test_cpu_device_send_nested():
    dev = backend.CpuDevice()
    a, b, c = numpy.zeros(1), numpy.ones(2), numpy.arange(3)
    out = dev.send({'x': [a, (b, None)], 'y': c})
    assert isinstance(out, dict)
    assert isinstance(out['x'], list)
    assert isinstance(out['x'][1], tuple)
    assert out['x'][0] is a
    assert out['x'][1][0] is b
    assert out['x'][1][1] is None
    assert out['y'] is c
    t = dev.send((a, b))
    assert type(t) is tuple and t[0] is a and t[1] is b


def test_cpu_device_is_array_supported():
    dev = backend.CpuDevice()
    assert dev.is_array_supported(numpy.zeros(1))
    assert not dev.is_array_supported([1.0])


def test_copyto():
    dst = numpy.zeros(3)
    backend.copyto(dst, numpy.arange(3.0))
    numpy.testing.assert_array_equal(dst, [0.0, 1.0, 2.0])


def test_variable_to_device_uses_get_device():
    x = chainlite.Variable(numpy.zeros(2, numpy.float32))
    with pytest.raises(RuntimeError, match='CUDA is not available'):
        x.to_device('@cupy:0')


# --- chainlite.backends.cuda ---------------------------------------------------------------


def test_cuda_is_not_available():
    assert cuda.available is False
    assert chainlite.backends.cuda is cuda


def test_cuda_cupy_is_a_placeholder_no_array_module_is():
    # As in Chainer without CuPy: not None, so `xp is cuda.cupy` is False for every xp.
    assert cuda.cupy is not None and cuda.cupy is not numpy
    assert backend.get_array_module(numpy.zeros(2)) is not cuda.cupy
    assert 'not available' in repr(cuda.cupy)


def test_intel64_device_cannot_be_made_and_owns_no_array():
    from chainlite.backends import intel64
    assert intel64.Intel64Device is backend.Intel64Device
    with pytest.raises(RuntimeError, match='iDeep is not available'):
        backend.Intel64Device()
    for value in (numpy.zeros(2, numpy.float32), None, 1, ()):
        assert backend.Intel64Device.from_array(value) is None
    # The name still means the CPU, as chainlite has always read it.
    assert chainlite.get_device('@intel64') == backend.CpuDevice()


def test_cuda_to_cpu_is_identity_on_numpy_and_none():
    a = numpy.arange(4.0)
    assert cuda.to_cpu(a) is a
    assert cuda.to_cpu(None) is None


def test_cuda_to_cpu_on_sequences_and_scalars():
    a, b = numpy.zeros(1), numpy.ones(1)
    out = cuda.to_cpu([a, b])
    assert isinstance(out, list) and out[0] is a and out[1] is b
    out = cuda.to_cpu((a, None))
    assert isinstance(out, tuple) and out[0] is a and out[1] is None
    s = cuda.to_cpu(numpy.float32(1.5))
    assert isinstance(s, numpy.ndarray) and s == 1.5


def test_cuda_to_gpu_raises():
    with pytest.raises(RuntimeError, match='CUDA is not available'):
        cuda.to_gpu(numpy.zeros(2))


def test_cuda_check_cuda_available_raises():
    with pytest.raises(RuntimeError, match='CUDA is not available'):
        cuda.check_cuda_available()


def test_cuda_get_array_module_is_numpy():
    assert cuda.get_array_module(numpy.zeros(1)) is numpy
    assert cuda.get_array_module() is numpy
    assert cuda.get_array_module(chainlite.Variable(numpy.zeros(1))) is numpy


def test_cuda_ndarray_isinstance_is_false():
    assert not isinstance(numpy.zeros(1), cuda.ndarray)


def test_cuda_dummy_device():
    with cuda.DummyDevice as d:
        assert d is cuda.DummyDevice
    assert cuda.DummyDevice.use() is None
    assert int(cuda.DummyDevice) == -1


def test_cuda_fuse_without_cupy_returns_function():
    def f(x):
        return x + 1

    assert cuda.fuse(f) is f
    assert cuda.fuse(kernel_name='k')(f) is f


def test_importing_chainlite_does_not_import_scipy():
    # scipy.special costs ~120 ms and ~30 MB: it is loaded only when a special function runs.
    import subprocess
    import sys
    code = ('import sys, chainlite, chainlite.functions, chainlite.links, chainlite.training; '
            'print("scipy" in sys.modules)')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == 'False'


def test_get_device_accepts_integers_given_as_strings():
    # Chainer's examples parse --device as a string and pass '-1' for the CPU.
    assert chainlite.get_device('-1') is chainlite.get_device('@numpy')
    with pytest.raises(RuntimeError):
        chainlite.get_device('0')


def test_get_device_of_a_name_without_at_mentions_chainerx():
    # Chainer reads such a name as a ChainerX device: a RuntimeError without ChainerX.
    with pytest.raises(RuntimeError, match='ChainerX'):
        chainlite.get_device('foo')
    with pytest.raises(ValueError, match='ChainerX'):
        chainlite.get_device('foo')


def test_cpu_device_from_array():
    dev = backend.CpuDevice.from_array(numpy.zeros(2, numpy.float32))
    assert dev == backend.CpuDevice() and dev.supported_array_types == (numpy.ndarray,)
    for value in (None, 1, (), numpy.float32(1)):
        assert backend.CpuDevice.from_array(value) is None


def test_cuda_dummy_device_without_gpus():
    from chainlite.backends import cuda
    assert cuda.get_device_from_array(numpy.int64(0)) is cuda.DummyDevice
    assert cuda.get_device_from_array(numpy.zeros(2)) is cuda.DummyDevice
    assert cuda.get_device_from_id(None) is cuda.DummyDevice
    with pytest.raises(RuntimeError, match='CUDA is not available'):
        cuda.get_device_from_id(0)
