"""Training on a GPU: converters, updaters, the evaluator, the reporter and the extensions.

Every test runs the same code on the CPU and on the GPU (the strict CuPy stand-in, or real
CuPy under ``CHAINLITE_TEST_GPU=1``) and compares: the batches and parameters are GPU arrays
on the GPU side, and the numbers match the CPU's (the stand-in computes with NumPy).
"""
import copy
import importlib.util
import io
import os
import pathlib
import types

import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import backend
from chainlite import iterators
from chainlite import optimizers
from chainlite import reporter
from chainlite import serializers
from chainlite import training
from chainlite.backends import cuda
from chainlite.dataset import convert
from chainlite.training import extensions
from chainlite.training.updaters import multiprocess_parallel_updater as mpu

REAL_GPU = os.environ.get('CHAINLITE_TEST_GPU') == '1'
# Float32 losses after a few updates: the stand-in is bit-identical, a real GPU sums in
# another order.
RTOL = 1e-4 if REAL_GPU else 1e-6


def _on_gpu(xp, *arrays, device_id=0):
    for a in arrays:
        assert isinstance(a, xp.ndarray), type(a)
        assert a.device.id == device_id


def _two_gpus(xp):
    # The stand-in has two devices; a real machine may have one.
    if xp.cuda.runtime.getDeviceCount() < 2:
        pytest.skip('needs two GPUs')


def _examples(n=6, dim=3, seed=0):
    rng = numpy.random.RandomState(seed)
    return [(rng.uniform(-1, 1, dim).astype(numpy.float32), numpy.int32(i % 2))
            for i in range(n)]


class _MLP(chainlite.Chain):
    """Two layers with explicit sizes: their parameters are drawn on the CPU at creation."""

    def __init__(self, n_in=64, n_units=32, n_out=10):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(n_in, n_units)
            self.l2 = L.Linear(n_units, n_out)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


def _twin_models(n_in=64, n_units=32, n_out=10, seed=0):
    """The same classifier twice: one stays on the CPU, the other is for the GPU."""
    numpy.random.seed(seed)
    cpu = L.Classifier(_MLP(n_in, n_units, n_out))
    return cpu, copy.deepcopy(cpu)


def _params(link):
    return {name: cuda.to_cpu(p.array) for name, p in link.namedparams()}


def _assert_params_equal(cpu_link, gpu_link, xp, rtol=RTOL):
    cpu, gpu = _params(cpu_link), _params(gpu_link)
    assert cpu.keys() == gpu.keys()
    for name, p in gpu_link.namedparams():
        _on_gpu(xp, p.array)
    for name in cpu:
        numpy.testing.assert_allclose(gpu[name], cpu[name], rtol=rtol, atol=1e-7,
                                      err_msg=name)


# -- converters ------------------------------------------------------------------------------

@pytest.mark.parametrize('spec', [0, '0', '@cupy:0', 'device', 'cupy device'])
def test_concat_examples_sends_tuples_to_the_gpu(spec, gpu_xp):
    device = {'device': lambda: chainlite.get_device('@cupy:0'),
              'cupy device': lambda: gpu_xp.cuda.Device(0)}.get(spec, lambda: spec)()
    batch = _examples()
    x_cpu, t_cpu = convert.concat_examples(batch)
    x, t = convert.concat_examples(batch, device)
    _on_gpu(gpu_xp, x, t)
    assert (x.dtype, t.dtype) == (numpy.float32, numpy.int32)
    numpy.testing.assert_array_equal(x.get(), x_cpu)
    numpy.testing.assert_array_equal(t.get(), t_cpu)


def test_concat_examples_dicts_and_padding_on_the_gpu(gpu_xp):
    batch = [{'x': numpy.arange(3.0), 't': 0}, {'x': numpy.arange(2.0), 't': 1}]
    cpu = convert.concat_examples(batch, padding={'x': -1})
    gpu = convert.concat_examples(batch, '@cupy:0', padding={'x': -1})
    assert list(gpu) == ['x', 't']
    _on_gpu(gpu_xp, gpu['x'], gpu['t'])
    for key in cpu:
        numpy.testing.assert_array_equal(gpu[key].get(), cpu[key])


def test_concat_examples_of_gpu_arrays_stay_on_their_gpu(gpu_xp):
    _two_gpus(gpu_xp)
    host = [numpy.arange(4.0).reshape(2, 2) + i for i in range(3)]
    with chainlite.using_device('@cupy:1'):
        on_one = [gpu_xp.asarray(a) for a in host]
    _on_gpu(gpu_xp, *on_one, device_id=1)
    stacked = convert.concat_examples(on_one)
    _on_gpu(gpu_xp, stacked, device_id=1)
    numpy.testing.assert_array_equal(stacked.get(), numpy.stack(host))
    # Padding happens on the examples' GPU too.
    ragged = [gpu_xp.asarray(numpy.arange(3.0)), gpu_xp.asarray(numpy.arange(1.0))]
    padded = convert.concat_examples(ragged, padding=7)
    _on_gpu(gpu_xp, padded)
    numpy.testing.assert_array_equal(padded.get(), [[0, 1, 2], [0, 7, 7]])
    # ... and come back to the host for the CPU.
    back = convert.concat_examples(on_one, -1)
    assert isinstance(back, numpy.ndarray)
    numpy.testing.assert_array_equal(back, numpy.stack(host))


def test_to_device_between_host_and_gpus(gpu_xp):
    _two_gpus(gpu_xp)
    x = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    on_gpu = convert.to_device(0, x)
    _on_gpu(gpu_xp, on_gpu)
    on_second = convert.to_device('@cupy:1', x)
    _on_gpu(gpu_xp, on_second, device_id=1)
    assert convert.to_device(None, on_gpu) is on_gpu
    nested = convert.to_device('@cupy:0', {'a': [x, x], 'b': (x,)})
    _on_gpu(gpu_xp, *nested['a'], *nested['b'])
    back = convert.to_device(-1, on_gpu)
    assert isinstance(back, numpy.ndarray)
    numpy.testing.assert_array_equal(back, x)


def test_converter_decorator_hands_the_function_a_gpu_device(gpu_xp):
    seen = []

    @chainlite.dataset.converter()
    def to_list(batch, device):
        seen.append(device)
        return device.send(numpy.asarray(batch))

    for spec in (0, '@cupy:0', gpu_xp.cuda.Device(0)):
        _on_gpu(gpu_xp, to_list([1.0, 2.0], spec))
    assert seen == [chainlite.get_device('@cupy:0')] * 3
    assert all(isinstance(d, backend.GpuDevice) for d in seen)


def test_old_style_converter_gets_the_gpu_id(gpu_xp):
    _two_gpus(gpu_xp)
    # A plain function (Chainer 6's converters) receives the GPU as an integer id.
    seen = []

    def old_style(batch, device):
        seen.append(device)
        return convert.concat_examples(batch, device)

    x, t = convert._call_converter(old_style, _examples(), chainlite.get_device('@cupy:1'))
    _on_gpu(gpu_xp, x, t, device_id=1)
    assert seen == [1] and type(seen[0]) is int


def test_concat_with_async_transfer_on_the_gpu(gpu_xp):
    batch = _examples()
    convert_ = convert.ConcatWithAsyncTransfer()
    for _ in range(3):
        x, t = convert_(batch, 0)
        _on_gpu(gpu_xp, x, t)
        numpy.testing.assert_array_equal(x.get(), convert.concat_examples(batch)[0])
        numpy.testing.assert_array_equal(t.get(), convert.concat_examples(batch)[1])
    out = convert_([{'x': numpy.arange(3.0)}, {'x': numpy.arange(1.0)}], 0, padding=-1)
    _on_gpu(gpu_xp, out['x'])
    numpy.testing.assert_array_equal(out['x'].get(), [[0, 1, 2], [0, -1, -1]])
    _on_gpu(gpu_xp, convert_([numpy.ones(2), numpy.ones(2)], '@cupy:0'))
    with pytest.raises(ValueError, match='device is different'):
        convert_(batch, -1)
    if gpu_xp.cuda.runtime.getDeviceCount() > 1:
        with pytest.raises(ValueError, match='device is different'):
            convert_(batch, 1)


class _Recorder:
    """A CUDA event or stream that records what is done with it."""

    def __init__(self, log, name):
        self.log, self.name = log, name

    def synchronize(self):
        self.log.append((self.name, 'synchronize'))

    def record(self, stream=None):
        self.log.append((self.name, 'record', getattr(stream, 'name', 'copy')))

    def wait_event(self, event):
        self.log.append((self.name, 'wait', event.name))


def test_concat_with_async_transfer_copies_through_pinned_buffers(gpu_xp, monkeypatch):
    if REAL_GPU:
        pytest.skip('replaces CuPy\'s pinned allocator and events (the real ones run in '
                    'test_concat_with_async_transfer_on_the_gpu)')
    # Real CuPy's asynchronous path, with the pinned allocator and the device synchronization
    # recorded (the stand-in has neither): two buffers per array, reused while shapes hold.
    log = []
    monkeypatch.setattr(gpu_xp.cuda, 'alloc_pinned_memory',
                        lambda n: log.append(('pinned', n)) or bytearray(n), raising=False)
    monkeypatch.setattr(gpu_xp.cuda.runtime, 'deviceSynchronize',
                        lambda: log.append(('device', 'synchronize')), raising=False)
    events = iter([_Recorder(log, 'event1'), _Recorder(log, 'event2')])
    monkeypatch.setattr(gpu_xp.cuda, 'Event', lambda: next(events))
    compute = _Recorder(log, 'compute')
    convert_ = convert.ConcatWithAsyncTransfer(compute_stream=compute)
    results = []
    for seed in range(3):
        batch = _examples(seed=seed)
        x, t = convert_(batch, '@cupy:0')
        _on_gpu(gpu_xp, x, t)
        x_cpu, t_cpu = convert.concat_examples(batch)
        numpy.testing.assert_array_equal(x.get(), x_cpu)
        numpy.testing.assert_array_equal(t.get(), t_cpu)
        results.append(x)
    assert convert_._stream is not None
    # Four pinned buffers (two arrays, two each), allocated after waiting for the device.
    assert [e for e in log if e[0] == 'pinned'] == [('pinned', 72), ('pinned', 24)] * 2
    assert ('device', 'synchronize') in log
    # The third batch reuses the first batch's device array.
    assert results[2] is results[0] and results[1] is not results[0]
    # The copies wait for the computation, and the computation for the copies.
    assert log.count(('event1', 'synchronize')) == 3
    assert log.count(('event1', 'record', 'compute')) == 3
    assert log.count(('event2', 'record', 'copy')) == 3
    assert log.count(('compute', 'wait', 'event2')) == 3


# -- updaters --------------------------------------------------------------------------------

def _train(model, device, n_iter, optimizer=None, batchsize=4, seed=1, data=None,
           converter=convert.concat_examples):
    optimizer = optimizer or optimizers.SGD(lr=0.1)
    optimizer.setup(model)
    numpy.random.seed(seed)
    data = data if data is not None else chainlite.datasets.get_digits(scale=1.0)[0]
    it = iterators.SerialIterator(data, batchsize)
    updater = training.updaters.StandardUpdater(it, optimizer, converter=converter,
                                                device=device)
    losses = []
    for _ in range(n_iter):
        observation = {}
        with reporter.Reporter() as r:
            r.add_observer('main', model)
            with r.scope(observation):
                updater.update()
        losses.append(observation['main/loss'])
    return updater, losses


@pytest.mark.parametrize('opt', ['SGD', 'MomentumSGD', 'Adam'])
def test_standard_updater_trains_on_the_gpu_as_on_the_cpu(opt, gpu_xp):
    cpu, gpu = _twin_models()
    _, cpu_losses = _train(cpu, None, 5, getattr(optimizers, opt)())
    updater, gpu_losses = _train(gpu, '@cupy:0', 5, getattr(optimizers, opt)())
    assert updater.device == chainlite.get_device('@cupy:0') == updater.input_device
    for c, g in zip(cpu_losses, gpu_losses):
        _on_gpu(gpu_xp, g.array)
        numpy.testing.assert_allclose(float(g.array), float(c.array), rtol=RTOL)
    _assert_params_equal(cpu, gpu, gpu_xp)
    for name, param in gpu.namedparams():
        for value in (param.update_rule.state or {}).values():
            if not numpy.isscalar(value):
                _on_gpu(gpu_xp, value)  # the optimizer's state lives with the parameter


def test_standard_updater_moves_a_model_between_gpus(gpu_xp):
    _two_gpus(gpu_xp)
    _, model = _twin_models(3, 4, 2)
    model.to_device('@cupy:1')
    opt = optimizers.SGD().setup(model)
    training.updaters.StandardUpdater(iterators.SerialIterator(_examples(), 2), opt,
                                      device='@cupy:0')
    for _, p in model.namedparams():
        _on_gpu(gpu_xp, p.array, device_id=0)


def test_standard_updater_input_device_and_old_style_converter(gpu_xp):
    cpu, gpu = _twin_models()
    gpu.to_device('@cupy:0')
    seen = []

    def old_style(batch, device):
        seen.append(device)
        return convert.concat_examples(batch, device)

    _, cpu_losses = _train(cpu, None, 2)
    numpy.random.seed(1)
    opt = optimizers.SGD(lr=0.1).setup(gpu)
    it = iterators.SerialIterator(chainlite.datasets.get_digits(scale=1.0)[0], 4)
    updater = training.updaters.StandardUpdater(it, opt, converter=old_style,
                                                input_device='@cupy:0')
    assert updater.device is None
    updater.update()
    updater.update()
    assert seen == [0, 0]
    _assert_params_equal(cpu, gpu, gpu_xp)


def test_standard_updater_on_the_second_gpu(gpu_xp):
    _two_gpus(gpu_xp)
    cpu, gpu = _twin_models()
    _, cpu_losses = _train(cpu, -1, 3)
    # As in Chainer, the updater leaves the current device to the script (device.use()).
    with chainlite.using_device('@cupy:1'):
        _, gpu_losses = _train(gpu, '@cupy:1', 3)
    for name, p in gpu.namedparams():
        _on_gpu(gpu_xp, p.array, p.grad, device_id=1)
    numpy.testing.assert_allclose([float(g.array) for g in gpu_losses],
                                  [float(c.array) for c in cpu_losses], rtol=RTOL)


class _DeviceRecorder(L.Classifier):
    """A classifier that records the current GPU at each forward."""

    def forward(self, *args, **kwargs):
        if cuda.is_gpu_array(args[0]):
            self.current.append(cuda.cupy.cuda.get_device_id())
        return super().forward(*args, **kwargs)


@pytest.mark.parametrize('devices', [{'main': '@cupy:0', 'second': '@cupy:1'},
                                     {'main': 0, 'second': 1}], ids=['specs', 'ids'])
def test_parallel_updater_on_two_gpus_matches_the_cpu(devices, gpu_xp):
    _two_gpus(gpu_xp)
    def run(devices):
        numpy.random.seed(0)
        model = _DeviceRecorder(_MLP(3, 8, 2))
        model.current = []
        opt = optimizers.MomentumSGD(lr=0.1).setup(model)
        numpy.random.seed(1)
        it = iterators.SerialIterator(_examples(16, seed=2), 8)
        updater = training.updaters.ParallelUpdater(it, opt, devices=devices)
        for _ in range(3):
            updater.update()
        return model, updater

    cpu, _ = run({'main': -1, 'second': -1})
    gpu, updater = run(devices)
    _assert_params_equal(cpu, gpu, gpu_xp)
    second = updater._models['second']
    for _, p in second.namedparams():
        _on_gpu(gpu_xp, p.array, device_id=1)
    for (name, p), (_, q) in zip(second.namedparams(), gpu.namedparams()):
        numpy.testing.assert_array_equal(p.array.get(), q.array.get(), err_msg=name)
    # Each model computed with its own GPU current.
    assert (gpu.current, second.current) == ([0] * 3, [1] * 3)


def test_multiprocess_parallel_updater_says_nccl_is_missing(gpu_xp):
    assert not mpu.MultiprocessParallelUpdater.available()
    it = iterators.SerialIterator(_examples(), 2)
    opt = optimizers.SGD().setup(L.Classifier(L.Linear(3, 2)))
    with pytest.raises(RuntimeError, match='NCCL'):
        training.updaters.MultiprocessParallelUpdater([it, it], opt, devices=[0, 1])


def test_multiprocess_parallel_updater_without_cupy_says_so():
    previous = cuda._install(None, 'CuPy is not installed (test)')
    try:
        assert not mpu.MultiprocessParallelUpdater.available()
        with pytest.raises(RuntimeError, match='CuPy is not installed'):
            mpu.MultiprocessParallelUpdater([], None, devices=[0, 1])
    finally:
        cuda._install(*previous)


def test_gather_and_scatter_parameters_on_the_gpu(gpu_xp):
    cpu, gpu = _twin_models(3, 4, 2)
    gpu.to_device('@cupy:0')
    x, t = convert.concat_examples(_examples())
    for model, xs in ((cpu, (x, t)), (gpu, convert.to_device(0, (x, t)))):
        model.cleargrads()
        model(*xs).backward()
    # Chainer's order (sorted parameter paths), as float32.
    expected = numpy.concatenate([p.grad.ravel() for _, p in sorted(cpu.namedparams())])
    grads = mpu.gather_grads(gpu)
    _on_gpu(gpu_xp, grads)
    assert grads.dtype == numpy.float32
    numpy.testing.assert_allclose(grads.get(), expected, rtol=1e-6)
    params = mpu.gather_params(gpu)
    numpy.testing.assert_array_equal(
        params.get(), numpy.concatenate([p.array.ravel() for _, p in sorted(cpu.namedparams())]))
    with pytest.raises(RuntimeError, match='only on GPU'):
        mpu.gather_grads(cpu)
    mpu.scatter_params(gpu, params * 2)
    mpu.scatter_grads(gpu, grads + 1)
    for (name, p), (_, q) in zip(sorted(gpu.namedparams()), sorted(cpu.namedparams())):
        _on_gpu(gpu_xp, p.array, p.grad)
        numpy.testing.assert_array_equal(p.array.get(), q.array * 2, err_msg=name)
        numpy.testing.assert_allclose(p.grad.get(), q.grad + 1, rtol=1e-6, err_msg=name)


# -- the evaluator ---------------------------------------------------------------------------

@pytest.mark.parametrize('device', [0, '@cupy:0'])
@pytest.mark.parametrize('converter', ['concat_examples', 'ConcatWithAsyncTransfer'])
def test_evaluator_on_the_gpu_matches_the_cpu(device, converter, gpu_xp):
    cpu, gpu = _twin_models()
    gpu.to_device(device)
    test = chainlite.datasets.get_digits(scale=1.0)[1]
    results = []
    for model, dev in ((cpu, None), (gpu, device)):
        it = iterators.SerialIterator(test, 50, repeat=False, shuffle=False)
        convert_ = (convert.concat_examples if converter == 'concat_examples'
                    else convert.ConcatWithAsyncTransfer())
        results.append(extensions.Evaluator(it, model, converter=convert_, device=dev)())
    cpu_result, gpu_result = results
    assert sorted(gpu_result) == ['main/accuracy', 'main/loss']
    for key in cpu_result:
        _on_gpu(gpu_xp, gpu_result[key])  # accumulated on the device, as Chainer does
        numpy.testing.assert_allclose(float(gpu_result[key]), float(cpu_result[key]),
                                      rtol=RTOL)


# -- the reporter ----------------------------------------------------------------------------

_SYNCS = ('get', '__float__', '__int__', '__bool__', '__index__', 'item', 'tolist')


@pytest.fixture
def syncs(gpu_xp, monkeypatch):
    """Counts the copies of GPU values to the host (the stand-in's array type is patched)."""
    if REAL_GPU:
        pytest.skip('counts the stand-in array\'s copies to the host')
    count = []
    for name in _SYNCS:
        original = getattr(gpu_xp.ndarray, name)

        def counted(self, *args, _original=original, _name=name, **kwargs):
            count.append(_name)
            return _original(self, *args, **kwargs)
        monkeypatch.setattr(gpu_xp.ndarray, name, counted)
    return count


def test_report_keeps_gpu_values(gpu_xp):
    loss = chainlite.Variable(gpu_xp.asarray(numpy.float32(1.5)))
    observation = {}
    with reporter.Reporter() as r:
        with r.scope(observation):
            chainlite.report({'loss': loss, 'raw': gpu_xp.asarray(2.0)})
    assert sorted(observation) == ['loss', 'raw']
    _on_gpu(gpu_xp, observation['loss'].array, observation['raw'])
    assert float(observation['loss'].array) == 1.5


def test_summary_accumulates_on_the_gpu_without_copies(gpu_xp, syncs):
    values = [0.5, 1.25, 3.0, -2.0]
    weights = [1, 2, 1, 3]
    cpu, gpu = reporter.Summary(), reporter.Summary()
    for v, w in zip(values, weights):
        cpu.add(numpy.float32(v), weight=w)
        gpu.add(chainlite.Variable(gpu_xp.asarray(numpy.float32(v))), weight=w)
    assert syncs == []  # nothing reached the host while adding
    mean, std = gpu.make_statistics()
    _on_gpu(gpu_xp, gpu.compute_mean(), mean, std)
    cpu_mean, cpu_std = cpu.make_statistics()
    numpy.testing.assert_allclose(float(mean), float(cpu_mean), rtol=1e-6)
    numpy.testing.assert_allclose(float(std), float(cpu_std), rtol=1e-6)
    numpy.testing.assert_allclose(float(gpu.compute_mean()), float(cpu.compute_mean()),
                                  rtol=1e-6)


def test_summary_of_values_on_the_second_gpu_stays_there(gpu_xp):
    _two_gpus(gpu_xp)
    with chainlite.using_device('@cupy:1'):
        values = [gpu_xp.asarray(numpy.float32(v)) for v in (1.0, 2.0, 6.0)]
    summary = reporter.Summary()
    for v in values:
        summary.add(v)
    mean, std = summary.make_statistics()
    _on_gpu(gpu_xp, summary.compute_mean(), mean, std, device_id=1)
    assert float(mean) == 3.0
    numpy.testing.assert_allclose(float(std), numpy.std([1.0, 2.0, 6.0]), rtol=1e-6)


def test_dict_summary_with_gpu_scalars_and_weights(gpu_xp):
    cpu, gpu = reporter.DictSummary(), reporter.DictSummary()
    for i in range(4):
        value, weight = numpy.float32(i * 0.75), numpy.float32(i + 1)
        cpu.add({'loss': value, 'acc': (value, weight), 'vector': numpy.ones(3)})
        gpu.add({'loss': gpu_xp.asarray(value),
                 'acc': (chainlite.Variable(gpu_xp.asarray(value)), gpu_xp.asarray(weight)),
                 'vector': gpu_xp.ones(3)})  # not a scalar: left out, as on the CPU
    cpu_stats, gpu_stats = cpu.make_statistics(), gpu.make_statistics()
    assert sorted(gpu_stats) == sorted(cpu_stats) == ['acc', 'acc.std', 'loss', 'loss.std']
    for key in cpu_stats:
        _on_gpu(gpu_xp, gpu_stats[key])
        numpy.testing.assert_allclose(float(gpu_stats[key]), float(cpu_stats[key]),
                                      rtol=1e-6, err_msg=key)
    with pytest.raises(ValueError, match='not a scalar'):
        gpu.add({'x': (1.0, gpu_xp.ones(2))})


def test_dict_summary_with_gpu_values_serializes(gpu_xp, tmp_path):
    summary = reporter.DictSummary()
    for v in (1.0, 2.0, 4.0):
        summary.add({'loss': gpu_xp.asarray(numpy.float32(v))})
    path = str(tmp_path / 'summary.npz')
    serializers.save_npz(path, summary)
    loaded = reporter.DictSummary()
    serializers.load_npz(path, loaded)
    numpy.testing.assert_allclose(float(loaded.compute_mean()['loss']), 7.0 / 3, rtol=1e-6)


# -- extensions ------------------------------------------------------------------------------

def _trainer(model, device, out, stop=(60, 'iteration'), batchsize=16, optimizer=None,
             seed=1):
    optimizer = optimizer or optimizers.MomentumSGD(lr=0.05)
    optimizer.setup(model)
    train, test = chainlite.datasets.get_digits(scale=1.0)
    numpy.random.seed(seed)
    it = iterators.SerialIterator(train, batchsize)
    updater = training.updaters.StandardUpdater(it, optimizer, device=device)
    trainer = training.Trainer(updater, stop, out=str(out))
    return trainer, test


def test_log_report_and_print_report_read_gpu_values(gpu_xp, tmp_path):
    logs = []
    for device in (None, '@cupy:0'):
        cpu_or_gpu = _twin_models()[device is not None]
        trainer, _ = _trainer(cpu_or_gpu, device, tmp_path / str(device),
                              stop=(20, 'iteration'))
        trainer.extend(extensions.LogReport(trigger=(10, 'iteration')))
        out = io.StringIO()
        trainer.extend(extensions.PrintReport(['iteration', 'main/loss', 'main/accuracy'],
                                              out=out), trigger=(10, 'iteration'))
        trainer.extend(extensions.ProgressBar(update_interval=5, out=io.StringIO()))
        trainer.run()
        logs.append((trainer.get_extension('LogReport').log, out.getvalue()))
    (cpu_log, cpu_text), (gpu_log, gpu_text) = logs
    assert [e['iteration'] for e in gpu_log] == [10, 20]
    for c, g in zip(cpu_log, gpu_log):
        for key in ('main/loss', 'main/accuracy'):
            assert type(g[key]) is float
            numpy.testing.assert_allclose(g[key], c[key], rtol=RTOL, err_msg=key)
    assert gpu_text.splitlines()[0] == cpu_text.splitlines()[0]
    assert len(gpu_text.splitlines()) == 3


def test_reported_gpu_values_reach_the_host_only_when_written(gpu_xp, tmp_path, syncs):
    # A regression model whose loss and optimizer do not read GPU values on the host: what
    # the trainer, the reporter and the extensions add is what is counted.
    numpy.random.seed(0)
    model = L.Linear(4, 1)
    model.to_device('@cupy:0')

    def loss_func(x, t):
        loss = F.mean_squared_error(model(x), t)
        chainlite.report({'loss': loss, 'scale': loss * 2, 'correct': (x > 0).sum(),
                          'total': x.size}, model)
        return loss

    rng = numpy.random.RandomState(0)
    data = [(rng.randn(4).astype(numpy.float32), rng.randn(1).astype(numpy.float32))
            for _ in range(40)]
    opt = optimizers.SGD(lr=0.01).setup(model)
    updater = training.updaters.StandardUpdater(iterators.SerialIterator(data, 4), opt,
                                                loss_func=loss_func, device='@cupy:0')
    trainer = training.Trainer(updater, (30, 'iteration'), out=str(tmp_path))
    trainer.reporter.add_observer('main', model)
    trainer.extend(extensions.LogReport(trigger=(10, 'iteration')))
    trainer.extend(extensions.PrintReport(['iteration', 'main/loss'], out=io.StringIO()),
                   trigger=(10, 'iteration'))
    trainer.extend(extensions.ProgressBar(update_interval=5, out=io.StringIO()))
    trainer.extend(extensions.MicroAverage('main/correct', 'main/total', 'main/ratio',
                                           trigger=(10, 'iteration')))
    trainer.run()
    # LogReport reads its three GPU means (the loss, the scale, the count) at each of its
    # three triggers, MicroAverage its GPU sum at each of its own: nothing per iteration.
    assert len(syncs) == 3 * 3 + 3, syncs
    assert [sorted(e) for e in trainer.get_extension('LogReport').log][0] == [
        'elapsed_time', 'epoch', 'iteration', 'main/correct', 'main/loss', 'main/ratio',
        'main/scale', 'main/total']


def test_snapshot_of_a_gpu_trainer_resumes_into_a_gpu_model(gpu_xp, tmp_path):
    full, _ = _twin_models()
    gpu_full = copy.deepcopy(full)
    half = copy.deepcopy(full)
    # An uninterrupted GPU run of 40 iterations against a run stopped at 20 and resumed.
    # LogReport's interval (7) spans the snapshot: its summary holds GPU sums when saved.
    trainer, _ = _trainer(gpu_full, '@cupy:0', tmp_path / 'full', stop=(40, 'iteration'),
                          optimizer=optimizers.Adam())
    trainer.extend(extensions.LogReport(trigger=(7, 'iteration')))
    trainer.run()
    full_log = trainer.get_extension('LogReport').log
    trainer, _ = _trainer(half, '@cupy:0', tmp_path / 'half', stop=(20, 'iteration'),
                          optimizer=optimizers.Adam())
    trainer.extend(extensions.snapshot(filename='snap'), trigger=(20, 'iteration'))
    trainer.extend(extensions.snapshot_object(half, 'model'), trigger=(20, 'iteration'))
    trainer.extend(extensions.LogReport(trigger=(7, 'iteration')))
    trainer.run()
    numpy.random.seed(123)
    resumed = L.Classifier(_MLP())
    resumed.to_device('@cupy:0')
    trainer, _ = _trainer(resumed, '@cupy:0', tmp_path / 'half', stop=(40, 'iteration'),
                          optimizer=optimizers.Adam())
    trainer.extend(extensions.LogReport(trigger=(7, 'iteration')))
    serializers.load_npz(str(tmp_path / 'half' / 'snap'), trainer)
    assert trainer.updater.iteration == 20
    trainer.run()
    log = trainer.get_extension('LogReport').log
    assert [e['iteration'] for e in log] == [e['iteration'] for e in full_log]
    for resumed_entry, full_entry in zip(log, full_log):
        for key in ('main/loss', 'main/accuracy'):
            numpy.testing.assert_allclose(resumed_entry[key], full_entry[key], rtol=1e-6)
    for _, param in resumed.namedparams():
        for value in param.update_rule.state.values():
            _on_gpu(gpu_xp, value)
    _assert_params_equal(gpu_full, resumed, gpu_xp, rtol=1e-6)
    # snapshot_object wrote the model's own arrays, readable into a CPU model.
    on_cpu = L.Classifier(_MLP())
    serializers.load_npz(str(tmp_path / 'half' / 'model'), on_cpu)
    for (name, p), (_, q) in zip(on_cpu.namedparams(), half.namedparams()):
        assert isinstance(p.array, numpy.ndarray)
        numpy.testing.assert_array_equal(p.array, q.array.get(), err_msg=name)


def test_background_snapshot_and_autoload_of_a_gpu_trainer(gpu_xp, tmp_path):
    full, half = _twin_models()
    trainer, _ = _trainer(full, '@cupy:0', tmp_path / 'full', stop=(30, 'iteration'))
    trainer.run()
    out = tmp_path / 'half'
    for stop in (15, 30):
        numpy.random.seed(stop)
        model = half if stop == 15 else L.Classifier(_MLP())
        trainer, _ = _trainer(model, '@cupy:0', out, stop=(stop, 'iteration'))
        trainer.extend(extensions.snapshot(filename='snap_{.updater.iteration}',
                                           writer=extensions.snapshot_writers.ThreadWriter(),
                                           autoload=True), trigger=(15, 'iteration'))
        trainer.run()
        assert trainer.updater.iteration == stop
    assert sorted(os.listdir(out)) == ['snap_15', 'snap_30']
    _assert_params_equal(full, model, gpu_xp, rtol=1e-6)


@pytest.mark.parametrize('shift', ['ExponentialShift', 'StepShift', 'LinearShift'])
def test_shifts_drive_a_gpu_optimizer(shift, gpu_xp, tmp_path):
    make = {'ExponentialShift': lambda: extensions.ExponentialShift('lr', 0.5),
            'StepShift': lambda: extensions.StepShift('lr', 0.5, 2),
            'LinearShift': lambda: extensions.LinearShift('lr', (0.1, 0.01), (0, 4))}[shift]
    results = []
    for device, model in zip((None, '@cupy:0'), _twin_models()):
        trainer, _ = _trainer(model, device, tmp_path / str(device), stop=(5, 'iteration'))
        trainer.extend(make(), trigger=(1, 'iteration'))
        trainer.run()
        results.append((trainer.updater.get_optimizer('main').lr, model))
    (cpu_lr, cpu), (gpu_lr, gpu) = results
    assert gpu_lr == cpu_lr and isinstance(gpu_lr, float)
    _assert_params_equal(cpu, gpu, gpu_xp)


def test_dump_graph_of_a_gpu_loss(gpu_xp, tmp_path):
    texts = []
    for device, model in zip((None, '@cupy:0'), _twin_models()):
        trainer, _ = _trainer(model, device, tmp_path / str(device), stop=(1, 'iteration'))
        trainer.extend(extensions.DumpGraph('main/loss'))
        trainer.run()
        texts.append((tmp_path / str(device) / 'cg.dot').read_text())
    assert 'LinearFunction' in texts[1] or 'Linear' in texts[1]
    assert texts[1].count('->') == texts[0].count('->') > 0


def test_parameter_statistics_of_a_gpu_model(gpu_xp):
    stats = []
    for device, model in zip((None, '@cupy:0'), _twin_models()):
        if device is not None:
            model.to_device(device)
        x, t = convert.concat_examples(_digits_batch(), device)
        model.cleargrads()
        model(x, t).backward()
        observation = {}
        with reporter.Reporter() as r:
            with r.scope(observation):
                extensions.ParameterStatistics(model, trigger=(1, 'iteration'))(
                    _fake_trainer(1))
        stats.append(observation)
    cpu, gpu = stats
    assert sorted(gpu) == sorted(cpu) and len(cpu) > 50
    for key in cpu:
        _on_gpu(gpu_xp, gpu[key])
        numpy.testing.assert_allclose(float(gpu[key]), float(cpu[key]), rtol=RTOL * 10,
                                      atol=1e-7, err_msg=key)


def test_fail_on_nonnumber_checks_gpu_parameters(gpu_xp):
    _, model = _twin_models(3, 4, 2)
    model.to_device('@cupy:0')
    trainer = _fake_trainer(1, optimizers.SGD().setup(model))
    extensions.FailOnNonNumber()(trainer)  # all finite
    model.predictor.l2.b.array[1] = numpy.inf
    with pytest.raises(RuntimeError, match='l2/b .* NaN or Inf'):
        extensions.FailOnNonNumber()(trainer)


def test_micro_average_of_gpu_counts(gpu_xp):
    average = extensions.MicroAverage('main/correct', 'main/total', 'main/accuracy',
                                      trigger=(2, 'iteration'))
    observation = {}
    with reporter.Reporter() as r:
        with r.scope(observation):
            for i, (correct, total) in enumerate([(3, 4), (1, 4)]):
                trainer = _fake_trainer(i + 1)
                trainer.observation = {'main/correct': gpu_xp.asarray(correct),
                                       'main/total': total}
                average(trainer)
    assert observation['main/accuracy'] == 0.5


def test_plot_report_of_gpu_values(gpu_xp, tmp_path):
    pytest.importorskip('matplotlib')
    _, model = _twin_models()
    trainer, _ = _trainer(model, '@cupy:0', tmp_path, stop=(4, 'iteration'))
    trainer.extend(extensions.PlotReport(['main/loss'], 'iteration', trigger=(2, 'iteration'),
                                         filename='loss.png'))
    trainer.run()
    assert (tmp_path / 'loss.png').stat().st_size > 0
    points = trainer.get_extension('PlotReport')._data['main/loss']
    assert len(points) == 2 and all(type(v) is float for _, v in points)


def test_variable_statistics_plot_of_a_gpu_model(gpu_xp, tmp_path):
    pytest.importorskip('matplotlib')
    data = []
    for device, model in zip((None, '@cupy:0'), _twin_models()):
        trainer, _ = _trainer(model, device, tmp_path / str(device), stop=(3, 'iteration'))
        trainer.extend(extensions.VariableStatisticsPlot(model, trigger=(3, 'iteration')))
        trainer.run()
        assert (tmp_path / str(device) / 'statistics.png').stat().st_size > 0
        data.append(trainer.get_extension('VariableStatisticsPlot')._samples.get_data())
    (cpu_idx, cpu_data), (gpu_idx, gpu_data) = data
    assert isinstance(gpu_data, numpy.ndarray)
    numpy.testing.assert_array_equal(gpu_idx, cpu_idx)
    numpy.testing.assert_allclose(gpu_data, cpu_data, rtol=RTOL * 10, atol=1e-6)


def _digits_batch(n=16):
    train = chainlite.datasets.get_digits(scale=1.0)[0]
    return [train[i] for i in range(n)]


def _fake_trainer(iteration, optimizer=None):
    updater = types.SimpleNamespace(iteration=iteration, epoch=0, epoch_detail=0.0,
                                    is_new_epoch=False, previous_epoch_detail=None,
                                    get_all_optimizers=lambda: {'main': optimizer})
    return types.SimpleNamespace(updater=updater, observation={})


# -- end to end ------------------------------------------------------------------------------

def test_mlp_trains_on_the_digits_on_the_gpu_as_on_the_cpu(gpu_xp, tmp_path):
    runs = []
    for device, model in zip((None, '@cupy:0'), _twin_models(n_units=64)):
        trainer, test = _trainer(model, device, tmp_path / str(device),
                                 stop=(300, 'iteration'), batchsize=32,
                                 optimizer=optimizers.Adam())
        test_iter = iterators.SerialIterator(test, 100, repeat=False, shuffle=False)
        trainer.extend(extensions.Evaluator(test_iter, model, device=device),
                       trigger=(100, 'iteration'))
        trainer.extend(extensions.LogReport(trigger=(1, 'iteration')))
        trainer.extend(extensions.snapshot(filename='snap_{.updater.iteration}'),
                       trigger=(300, 'iteration'))
        trainer.run()
        runs.append((trainer.get_extension('LogReport').log, model))
    (cpu_log, cpu), (gpu_log, gpu) = runs
    # The first iterations' losses agree to float tolerance (later ones drift apart on a
    # real GPU, whose sums round in another order).
    numpy.testing.assert_allclose([e['main/loss'] for e in gpu_log[:20]],
                                  [e['main/loss'] for e in cpu_log[:20]], rtol=RTOL * 10)
    validation = [e['validation/main/accuracy'] for e in gpu_log
                  if 'validation/main/accuracy' in e]
    assert len(validation) == 3 and validation[-1] > 0.9, validation
    snapshot = numpy.load(str(tmp_path / '@cupy:0' / 'snap_300'))
    numpy.testing.assert_array_equal(snapshot['updater/model:main/predictor/l1/W'],
                                     gpu.predictor.l1.W.array.get())


def test_train_digits_example_takes_a_device(gpu_xp, tmp_path, capsys):
    path = pathlib.Path(__file__).resolve().parents[2] / 'examples' / 'train_digits.py'
    spec = importlib.util.spec_from_file_location('_train_digits_example', path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    accuracy = example.main(['--epoch', '1', '--device', '@cupy:0', '--out',
                             str(tmp_path / 'gpu'), '--no-progress'])
    out = capsys.readouterr().out
    assert 'on @cupy:0' in out
    cpu_accuracy = example.main(['--epoch', '1', '--out', str(tmp_path / 'cpu'),
                                 '--no-progress'])
    if not REAL_GPU:  # where CuPy draws the lazily initialized weights itself, they differ
        # The same run, but the host's BLAS may sum in another order on either side (its
        # thread count): a few of the 360 test images may change class.
        assert abs(float(accuracy) - float(cpu_accuracy)) < 0.02
    assert float(accuracy) > 0.7
    # Chainer's --gpu flag names the same device.
    example.main(['--epoch', '1', '--gpu', '0', '--out', str(tmp_path / 'gpu0'),
                  '--no-progress'])
    assert 'on @cupy:0' in capsys.readouterr().out


# -- iterators and triggers ------------------------------------------------------------------

@pytest.mark.parametrize('make', ['SerialIterator', 'MultithreadIterator'])
def test_iterators_feed_batches_of_a_gpu_dataset(make, gpu_xp):
    rng = numpy.random.RandomState(0)
    x = rng.randn(10, 3).astype(numpy.float32)
    t = numpy.arange(10, dtype=numpy.int32)
    dataset = chainlite.datasets.TupleDataset(gpu_xp.asarray(x), gpu_xp.asarray(t))
    kwargs = {'n_threads': 2} if make == 'MultithreadIterator' else {}
    it = getattr(iterators, make)(dataset, 4, repeat=False, shuffle=False, **kwargs)
    seen = []
    for batch in it:
        xs, ts = convert.concat_examples(batch)  # stacked where the examples are
        _on_gpu(gpu_xp, xs, ts)
        seen.append(ts.get())
    if hasattr(it, 'finalize'):
        it.finalize()
    numpy.testing.assert_array_equal(numpy.concatenate(seen), t)
    numpy.random.seed(3)
    shuffled = iterators.SerialIterator(dataset, 5, shuffle=True)
    xs, ts = convert.concat_examples(shuffled.next(), -1)
    assert isinstance(xs, numpy.ndarray)
    numpy.testing.assert_array_equal(xs, x[ts])


def test_value_triggers_and_early_stopping_read_gpu_means(gpu_xp):
    from chainlite.training import triggers
    losses = [3.0, 2.0, 2.5, 2.6, 2.7]
    best = triggers.MinValueTrigger('main/loss', trigger=(1, 'iteration'))
    stop = triggers.EarlyStoppingTrigger(monitor='main/loss', patients=2,
                                         check_trigger=(1, 'iteration'),
                                         max_trigger=(100, 'iteration'))
    fired, stopped = [], []
    for i, loss in enumerate(losses):
        trainer = _fake_trainer(i + 1)
        trainer.updater.epoch_detail = i + 1.0
        trainer.observation = {'main/loss': gpu_xp.asarray(numpy.float32(loss))}
        fired.append(best(trainer))
        stopped.append(stop(trainer))
    assert fired == [True, True, False, False, False]
    assert stopped == [False, False, False, True, True]
    assert type(stop.best) is float and stop.best == 2.0
