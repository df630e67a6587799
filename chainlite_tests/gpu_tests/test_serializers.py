"""Serializers with models and optimizers on a GPU array module.

Saving a model or an optimizer whose arrays are on the GPU (the strict CuPy stand-in, or
real CuPy under ``CHAINLITE_TEST_GPU=1``) writes host arrays, so the file reads on a machine
without a GPU; loading into a GPU model fills its GPU arrays in place, on their device; an
uninitialised parameter of a GPU link is created on the GPU; an optimizer's state loads onto
the GPU and training goes on as on the CPU. NPZ and (where h5py is installed) HDF5.
"""
import copy
import itertools

import numpy
import pytest

import chainlite
from chainlite import optimizers
from chainlite import serializers
from chainlite.backends import cuda


class _Model(chainlite.Chain):
    # Parameters in a child link, a 0-d parameter, a persistent array and a persistent number.

    def __init__(self, seed=0, uninitialized=False):
        super().__init__()
        rng = numpy.random.default_rng(seed)
        with self.init_scope():
            self.child = chainlite.Link()
            with self.child.init_scope():
                self.child.W = chainlite.Parameter(
                    rng.uniform(-1, 1, (3, 4)).astype(numpy.float32))
                self.child.b = chainlite.Parameter(rng.uniform(-1, 1, 4).astype(numpy.float16))
            if uninitialized:
                self.u = chainlite.Parameter(chainlite.initializers.Zero(numpy.float32))
            else:
                self.u = chainlite.Parameter(rng.uniform(-1, 1, (2, 5)).astype(numpy.float32))
            self.s = chainlite.Parameter(numpy.asarray(rng.uniform(-1, 1), numpy.float64))
        self.add_persistent('mean', rng.uniform(-1, 1, 4).astype(numpy.float32))
        self.add_persistent('count', 7)


_files = itertools.count()


def _save(fmt, obj):
    # A file in pytest's temporary folder of the test (see the autouse fixture below).
    path = _folder[0] / ('%d.%s' % (next(_files), 'h5' if fmt == 'hdf5' else fmt))
    if fmt == 'npz':
        serializers.save_npz(path, obj)
    else:
        pytest.importorskip('h5py')
        serializers.save_hdf5(str(path), obj)
    return path


def _load(fmt, path, obj):
    if fmt == 'npz':
        serializers.load_npz(path, obj)
    else:
        serializers.load_hdf5(str(path), obj)


def _host_contents(fmt, path):
    # What a machine without a GPU reads: NumPy and h5py only.
    if fmt == 'npz':
        with numpy.load(path) as f:
            return {k: f[k] for k in f.files}
    import h5py
    out = {}
    with h5py.File(str(path), 'r') as f:
        f.visititems(lambda k, v: out.__setitem__(k, v[()]) if hasattr(v, 'shape') else None)
    return out


_folder = [None]


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path):
    _folder[0] = tmp_path
    yield
    _folder[0] = None


FORMATS = ['npz', 'hdf5']


@pytest.mark.parametrize('fmt', FORMATS)
def test_saving_a_gpu_model_writes_host_arrays(fmt, gpu_xp):
    cpu = _Model()
    gpu = copy.deepcopy(cpu).to_device('@cupy:0')
    assert isinstance(gpu.child.W.array, gpu_xp.ndarray)
    assert isinstance(gpu.mean, gpu_xp.ndarray)
    from_gpu = _host_contents(fmt, _save(fmt, gpu))
    from_cpu = _host_contents(fmt, _save(fmt, cpu))
    assert sorted(from_gpu) == sorted(from_cpu)
    for key, value in from_gpu.items():
        assert isinstance(value, (numpy.ndarray, numpy.generic)), key
        assert numpy.asarray(value).dtype == numpy.asarray(from_cpu[key]).dtype, key
        numpy.testing.assert_array_equal(value, from_cpu[key], key)


@pytest.mark.parametrize('device', ['@cupy:0', '@cupy:1'])
@pytest.mark.parametrize('fmt', FORMATS)
def test_loading_into_a_gpu_model_fills_its_arrays_in_place(fmt, device, gpu_xp):
    if device == '@cupy:1' and gpu_xp.cuda.runtime.getDeviceCount() < 2:
        pytest.skip('one GPU')
    source = _Model(seed=1)
    buf = _save(fmt, source)
    gpu = _Model(seed=2).to_device(device)
    device_id = int(device[-1])
    before = {name: p.array for name, p in gpu.namedparams()}
    mean = gpu.mean
    _load(fmt, buf, gpu)
    for name, p in gpu.namedparams():
        assert p.array is before[name], name  # the same GPU array, filled
        assert isinstance(p.array, gpu_xp.ndarray) and p.array.device.id == device_id, name
        numpy.testing.assert_array_equal(cuda.to_cpu(p.array),
                                         dict(source.namedparams())[name].array, name)
    assert gpu.mean is mean and isinstance(gpu.mean, gpu_xp.ndarray)
    numpy.testing.assert_array_equal(cuda.to_cpu(gpu.mean), source.mean)
    assert gpu.count == 7 and type(gpu.count) is int


@pytest.mark.parametrize('fmt', FORMATS)
def test_loading_into_an_uninitialized_parameter_of_a_gpu_link(fmt, gpu_xp):
    source = _Model(seed=3)
    buf = _save(fmt, source)
    gpu = _Model(seed=4, uninitialized=True).to_device('@cupy:0')
    assert gpu.u.array is None
    _load(fmt, buf, gpu)
    assert isinstance(gpu.u.array, gpu_xp.ndarray)
    assert gpu.u.array.dtype == numpy.float32 and gpu.u.shape == (2, 5)
    numpy.testing.assert_array_equal(cuda.to_cpu(gpu.u.array), source.u.array)


def test_dictionary_serializer_and_npz_deserializer_with_gpu_arrays(gpu_xp):
    model = _Model(seed=5).to_device('@cupy:0')
    s = serializers.DictionarySerializer()
    s.save(model)
    assert all(isinstance(v, numpy.ndarray) for v in s.target.values()), \
        {k: type(v) for k, v in s.target.items()}
    numpy.testing.assert_array_equal(s.target['child/W'], cuda.to_cpu(model.child.W.array))
    target = _Model(seed=6).to_device('@cupy:0')
    W = target.child.W.array
    serializers.NpzDeserializer(s.target).load(target)
    assert target.child.W.array is W
    numpy.testing.assert_array_equal(cuda.to_cpu(W), s.target['child/W'])
    # One value at a time, into a GPU array (and a mismatch refused before any copy).
    d = serializers.NpzDeserializer(s.target)
    value = gpu_xp.zeros(4, numpy.float32)
    assert d('mean', value) is value
    numpy.testing.assert_array_equal(cuda.to_cpu(value), s.target['mean'])
    with pytest.raises(ValueError, match='expected shape'):
        d('mean', gpu_xp.zeros(5, numpy.float32))
    # A dictionary of GPU arrays saved as it is.
    path = _folder[0] / 'dict.npz'
    serializers.save_npz(path, {'W': model.child.W.array, 't': 3})
    with numpy.load(path) as f:
        numpy.testing.assert_array_equal(f['W'], cuda.to_cpu(model.child.W.array))
        assert f['t'] == 3


def _train(model, opt, xp, steps, first=0):
    for step in range(first, first + steps):
        rng = numpy.random.default_rng(step)
        for _, p in sorted(model.namedparams()):
            p.grad = xp.asarray(rng.uniform(-1, 1, p.shape).astype(p.dtype))
        opt.update()


@pytest.mark.parametrize('fmt', FORMATS)
@pytest.mark.parametrize('name', ['Adam', 'MomentumSGD', 'RMSpropGraves', 'AdaDelta'])
def test_optimizer_state_on_the_gpu_saves_and_loads(name, fmt, gpu_xp):
    cpu = _Model(seed=8)
    gpu = copy.deepcopy(cpu).to_device('@cupy:0')
    cpu_opt = getattr(optimizers, name)().setup(cpu)
    gpu_opt = getattr(optimizers, name)().setup(gpu)
    _train(cpu, cpu_opt, numpy, 2)
    _train(gpu, gpu_opt, gpu_xp, 2)
    assert isinstance(gpu.child.W.update_rule.state[next(iter(
        gpu.child.W.update_rule.state))], gpu_xp.ndarray)
    saved = _host_contents(fmt, _save(fmt, gpu_opt))
    expected = _host_contents(fmt, _save(fmt, cpu_opt))
    assert sorted(saved) == sorted(expected)
    for key, value in saved.items():
        assert isinstance(value, (numpy.ndarray, numpy.generic)), key
        numpy.testing.assert_allclose(value, expected[key], rtol=1e-6, err_msg=key)
    buf = _save(fmt, gpu_opt)

    # Into an optimizer whose state is on the GPU: filled in place, still there.
    again = copy.deepcopy(gpu)
    again_opt = getattr(optimizers, name)().setup(again)
    _train(again, again_opt, gpu_xp, 1, first=10)
    states = {n: dict(p.update_rule.state) for n, p in again.namedparams()}
    _load(fmt, buf, again_opt)
    for n, p in again.namedparams():
        for k, v in p.update_rule.state.items():
            assert v is states[n][k], (n, k)
            assert isinstance(v, gpu_xp.ndarray), (n, k)
    assert again_opt.t == gpu_opt.t

    # Into a fresh optimizer of a fresh GPU model: the loaded state goes to the GPU at the
    # next update, and training goes on as on the CPU.
    fresh = copy.deepcopy(cpu).to_device('@cupy:0')
    _load(fmt, _save(fmt, gpu), fresh)
    fresh_opt = getattr(optimizers, name)().setup(fresh)
    _load(fmt, buf, fresh_opt)
    _train(cpu, cpu_opt, numpy, 2, first=2)
    _train(fresh, fresh_opt, gpu_xp, 2, first=2)
    cpu_params = dict(cpu.namedparams())
    for n, p in fresh.namedparams():
        assert isinstance(p.array, gpu_xp.ndarray), n
        numpy.testing.assert_allclose(cuda.to_cpu(p.array), cpu_params[n].array, rtol=1e-3,
                                      atol=1e-4, err_msg=n)
        for k, v in p.update_rule.state.items():
            assert isinstance(v, gpu_xp.ndarray), (n, k)
            numpy.testing.assert_allclose(cuda.to_cpu(v), cpu_params[n].update_rule.state[k],
                                          rtol=1e-3, atol=1e-4, err_msg='%s/%s' % (n, k))


@pytest.mark.parametrize('fmt', FORMATS)
def test_file_saved_from_the_gpu_loads_on_the_cpu(fmt, gpu_xp):
    gpu = _Model(seed=9).to_device('@cupy:0')
    opt = optimizers.Adam().setup(gpu)
    _train(gpu, opt, gpu_xp, 1)
    model_buf, opt_buf = _save(fmt, gpu), _save(fmt, opt)
    cpu = _Model(seed=10)
    cpu_opt = optimizers.Adam().setup(cpu)
    _load(fmt, model_buf, cpu)
    _load(fmt, opt_buf, cpu_opt)
    for n, p in cpu.namedparams():
        assert isinstance(p.array, numpy.ndarray), n
        numpy.testing.assert_array_equal(p.array, cuda.to_cpu(dict(gpu.namedparams())[n].array))
    _train(cpu, cpu_opt, numpy, 1, first=1)
    for n, p in cpu.namedparams():
        assert all(isinstance(v, numpy.ndarray) for v in p.update_rule.state.values()), n
