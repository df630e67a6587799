"""Chainer 7.8.1 names of the core, datasets, iterators, training and ChainerMN, under compat.

Each test checks what a name added for ``test_chainer_names.py`` does, as Chainer does it on a
machine without a GPU or ChainerX.
"""
import importlib
import importlib.util
import warnings

import numpy as np
import pytest



# -- the chainer package, devices and ChainerX ---------------------------------------------------

def test_fallback_and_compute_mode(chainer):
    assert repr(chainer.Fallback) == 'Fallback'
    assert chainer.get_compute_mode() is None
    with chainer.using_config('compute_mode', 'cudnn_fast'):
        assert chainer.get_compute_mode() == 'cudnn_fast'


def test_device_resident_is_the_base_of_links_and_visits_them(chainer):
    from chainer import device_resident
    assert chainer.DeviceResident is device_resident.DeviceResident
    model = chainer.Sequential(chainer.links.Linear(2, 3), chainer.links.BatchNormalization(3))
    assert isinstance(model, chainer.DeviceResident)

    class Recorder(device_resident.DeviceResidentsVisitor):
        def __init__(self):
            self.seen = []

        def visit_device_resident(self, resident):
            self.seen.append(type(resident).__name__)

        def visit_array(self, arr):
            self.seen.append(arr.shape)
            return arr

        def visit_variable(self, param):
            self.seen.append(param.name)

    recorder = Recorder()
    model.device_resident_accept(recorder)
    assert recorder.seen == ['Sequential', 'Linear', 'W', 'b', 'BatchNormalization', 'gamma',
                             'beta', (3,), (3,)]
    assert model.from_chx() is model
    with pytest.raises(RuntimeError, match='ChainerX is not available'):
        model.to_chx()
    with pytest.raises(TypeError):
        device_resident.DeviceResidentsVisitor()  # abstract


def test_device_resident_subclass_moves_its_arrays(chainer):
    from chainer import device_resident

    class Table(device_resident.DeviceResident):
        def __init__(self):
            super().__init__()
            self.table = np.array([1.0, 2.0])

        def device_resident_accept(self, visitor):
            super().device_resident_accept(visitor)
            self.table = visitor.visit_array(self.table)

    table = Table()
    assert str(table.device) == '@numpy' and table.xp is np
    assert table.to_device(-1) is table
    assert table.table.tolist() == [1.0, 2.0]
    with pytest.warns(DeprecationWarning, match='to_cpu'):
        table.to_cpu()
    with pytest.raises(RuntimeError):
        table.to_gpu()
    with pytest.raises(RuntimeError):
        table.to_chx()


def test_backend_module_and_chainerx_conversions(chainer):
    from chainer import _backend, backend
    from chainer.backends import _chainerx, _cpu
    assert _backend.Device is backend.Device and issubclass(backend.CpuDevice, _backend.Device)
    assert _chainerx.ChainerxDevice is backend.ChainerxDevice
    a = np.arange(3.0)
    assert _chainerx.from_chx(a) is a and _chainerx._array_from_chainerx(a) is a
    assert _chainerx.from_chx((a, None, a)) == (a, None, a)
    with pytest.raises(TypeError, match='invalid type'):
        _chainerx.from_chx('text')
    assert _chainerx.to_chx(None) is None and backend.to_chx([None]) == [None]
    for convert in (backend.to_chx, _chainerx.to_chx, _chainerx._array_to_chainerx):
        with pytest.raises(RuntimeError, match='ChainerX is not available'):
            convert(a)
    with pytest.raises(AttributeError):  # what Chainer without ChainerX raises
        backend.to_chx(a)
    with pytest.raises(RuntimeError):
        _chainerx._get_chainerx_device('native:0')
    assert _cpu._array_to_cpu(a) is a and _cpu._array_to_cpu(None) is None
    scalar = _cpu._array_to_cpu(2.5)
    assert isinstance(scalar, np.ndarray) and scalar.shape == () and scalar == 2.5
    with pytest.raises(TypeError, match='Actual type'):
        _cpu._array_to_cpu([1, 2])


def test_variable_repr_and_str(chainer):
    from chainer import variable
    x = chainer.Variable(np.array([1.0, 2.0], dtype=np.float32), name='x')
    assert variable.variable_repr(x) == repr(x) == 'variable x([1., 2.])'
    assert variable.variable_str(x) == str(x) == 'variable x([1. 2.])'
    empty = chainer.Variable(np.zeros((0, 3)))
    assert variable.variable_repr(empty) == 'variable([], shape=(0, 3))'
    assert variable.variable_str(empty) == 'variable([])'
    assert variable.variable_repr(chainer.Variable()) == 'variable(None)'


def test_grad_table_sums_lazily_and_feeds_backprop_step(chainer):
    from chainer import _backprop_utils
    x = chainer.Variable(np.array([1.0, 2.0]))
    y = x * 3
    table = _backprop_utils.GradTable()
    table.accumulate(x.node, chainer.Variable(np.array([1.0, 1.0])))
    _backprop_utils.backprop_step(y.creator_node, (0,), (chainer.Variable(np.ones(2)),),
                                  table, False)
    np.testing.assert_array_equal(table.pop(x.node).array, [4.0, 4.0])
    assert table.pop(x.node) is None and table.pop(None) is None
    table[x.node] = chainer.Variable(np.array([7.0, 7.0]))
    assert len(table.get_as_list(x.node)) == 1
    with pytest.raises(AssertionError):
        table.assert_no_grads()
    table[x.node] = None
    table.assert_no_grads()
    # accumulate_grad_inputs: a leaf starts from the gradient it already holds.
    x.grad = np.array([10.0, 10.0])
    table = _backprop_utils.GradTable(accumulate_grad_inputs=True)
    table.accumulate(x.node, chainer.Variable(np.array([1.0, 2.0])))
    np.testing.assert_array_equal(table.pop(x.node).array, [11.0, 12.0])
    assert x.grad is None


# -- chainermn ------------------------------------------------------------------------------------

class _NumpyBuffer:
    """A CPU buffer with the methods of ChainerMN's DeviceMemory (which needs CuPy)."""

    def __init__(self, n_bytes):
        self.memory = np.zeros(n_bytes, np.uint8)

    def buffer(self, size):
        return self.memory[:size]

    def array(self, count, offset=0, dtype=np.float32):
        return self.memory[offset:].view(dtype)[:count]

    def from_device(self, src, size, offset=0, stream=None):
        self.memory[offset:offset + size] = np.ascontiguousarray(src).view(np.uint8).ravel()

    def to_device(self, dst, size, offset=0, stream=None):
        dst.reshape(-1).view(np.uint8)[...] = self.memory[offset:offset + size]


class _Stream:
    def __init__(self):
        self.synchronized = 0

    def synchronize(self):
        self.synchronized += 1


def test_memory_utility_selects_counts_and_packs_params(chainer):
    from chainermn.communicators import _memory_utility as mu
    model = chainer.Sequential(chainer.links.Linear(3, 2),
                               chainer.links.Linear(None, 4, nobias=True))
    model.cleargrads()
    params = mu.extract_params_set_data(model)
    assert [p.shape for p in params] == [(2, 3), (2,)]  # the lazy layer is not initialized
    assert mu.extract_params_set_grad(model, zero_fill=False) == []
    params[0].grad = np.ones((2, 3), np.float32)
    assert mu.extract_params_set_grad(model, zero_fill=False) == [params[0]]
    assert mu.extract_params_set_grad(model, zero_fill=True) == params
    assert mu.count_grad_elements([params[0]], zero_fill=False) == 6
    assert mu.count_grad_elements(params, zero_fill=True) == 8

    params[1].array[...] = [7.0, 8.0]
    buf = _NumpyBuffer(64)
    mu.pack_params(params, 'grad', buf, np.float64, zero_fill=True)
    np.testing.assert_array_equal(buf.array(8, dtype=np.float64), [1] * 6 + [0, 0])
    buf.array(8, dtype=np.float64)[...] = np.arange(8)
    params[1].grad = None
    mu.unpack_params(params, 'grad', buf, np.float64, zero_fill=True)
    assert params[0].grad.dtype == np.float32
    np.testing.assert_array_equal(params[0].grad.ravel(), np.arange(6))
    np.testing.assert_array_equal(params[1].grad, [6, 7])

    a = np.arange(6.0).reshape(2, 3).T
    pointer = mu.get_device_memory_pointer(a)
    assert pointer.flags.c_contiguous and np.array_equal(pointer, a)
    assert np.array_equal(mu.array_to_buffer_object(a), a)
    with pytest.raises(ValueError, match='unsupported array module'):
        mu.get_device_memory_pointer([1.0])


def test_memory_utility_gpu_buffers_raise_without_cupy(chainer):
    from chainermn.communicators import _memory_utility as mu
    assert mu.cp is None
    for cls in (mu.HostPinnedMemory, mu.DeviceMemory):
        with pytest.raises(RuntimeError, match='Cupy is not available'):
            cls()
    param = chainer.Parameter(np.ones(3, np.float32))
    with pytest.raises(ValueError, match='unsupported array module'):
        mu.ParamsData([param], 'grad', zero_fill=True)
    np.testing.assert_array_equal(param.grad, np.zeros(3))  # zero-filled first, as ChainerMN
    with pytest.raises(RuntimeError):
        mu.ParamsData([], 'data', zero_fill=False)


def test_communication_utility_splits_and_averages_across_nodes(chainer):
    pytest.importorskip('mpi4py')
    from mpi4py import MPI
    from chainermn.communicators import _communication_utility as cu
    world = MPI.COMM_WORLD
    intra = cu.init_intra_mpi_comm(world, world.rank, 0)
    inter = cu.init_inter_mpi_comm(world, world.rank, 0)
    assert intra.size == world.size and inter.size == 1
    with pytest.raises(RuntimeError, match='NCCL'):
        cu.init_nccl_comm(world)
    # One node: the mean over `size` processes of the node's sum is data / size.
    data = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    a, b, stream = _NumpyBuffer(16), _NumpyBuffer(16), _Stream()
    b.from_device(data, 16)
    cu.inter_allreduce_gpu(inter, 2, a, b, 16, 4, 16, stream)
    np.testing.assert_allclose(b.array(4), data / 2)
    assert stream.synchronized == 2


class _OneRank:
    rank = 0

    def bcast_obj(self, obj, root=0):
        return obj

    def _multi_node_mean(self, sendbuf, recvbuf):
        pass  # the mean over one rank is the value itself


def test_scatter_epoch_trigger_helpers_warn_and_count(chainer):
    from chainermn.datasets import scatter
    with pytest.warns(DeprecationWarning, match='get_n_iterations_for_one_epoch'):
        assert scatter.get_n_iterations_for_one_epoch(range(10), 4, _OneRank()) == 3
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        assert scatter.get_epoch_trigger(5, range(10), 4, _OneRank()) == (15, 'iteration')


def test_multi_node_bn_backend_and_impl_selector(chainer):
    from chainermn.functions import batch_normalization as mbn
    assert mbn.get_communication_backend(_OneRank()) == 'mpi'
    assert mbn.get_communication_backend(_OneRank(), 'mpi') == 'mpi'
    with pytest.raises(ValueError, match='nccl is not supported'):
        mbn.get_communication_backend(_OneRank(), 'nccl')
    with pytest.raises(ValueError, match='does not support gloo'):
        mbn.get_communication_backend(_OneRank(), 'gloo')
    impl = mbn.MultiNodeBNImplSelector(_OneRank(), 'mpi')(None, ())
    x = np.random.RandomState(0).randn(5, 3, 2).astype(np.float32)
    gamma = np.ones(3, np.float32)
    mean, var = impl.get_mean_and_var((0, 2), gamma, x, np, np.float32)
    np.testing.assert_allclose(mean, x.mean(axis=(0, 2)), rtol=1e-5)
    np.testing.assert_allclose(var, x.var(axis=(0, 2)), rtol=1e-4, atol=1e-6)
    gy = np.random.RandomState(1).randn(5, 3, 2).astype(np.float32)
    gbeta, ggamma = impl.get_ggamma_and_gbeta((0, 2), gamma, gy, x, np)
    np.testing.assert_allclose(gbeta, gy.sum(axis=(0, 2)), rtol=1e-5)
    np.testing.assert_allclose(ggamma, (gy * x).sum(axis=(0, 2)), rtol=1e-5)
    nccl = mbn.MultiNodeBNImplSelector(_OneRank(), 'nccl')(None, ())
    with pytest.raises(RuntimeError, match='Cupy is not available'):
        nccl.get_mean_and_var((0, 2), gamma, x, np, np.float32)


# -- chainer.dataset ------------------------------------------------------------------------------

def test_conveyor_puts_and_gets_in_order(chainer):
    from chainer.dataset import convert
    conveyor = convert.Conveyor(-1)
    a, b = np.arange(3), np.ones(2)
    conveyor.put(a)
    conveyor.put(b)
    np.testing.assert_array_equal(conveyor.get(), a)
    np.testing.assert_array_equal(conveyor.get(sync=False), b)
    with pytest.raises(IndexError, match='no array'):
        conveyor.get()
    left = convert.Conveyor()
    left.put(a)
    assert left.get() is a
    with pytest.raises(RuntimeError):
        convert.Conveyor(0, stream=object()).put(a)


def test_tabular_slice_helpers(chainer):
    from chainer.dataset.tabular import _slice
    assert _slice._as_indices(slice(1, 3), 5) == slice(1, 3)
    assert _slice._as_indices([True, False, True], 3) == [0, 2]
    assert _slice._as_indices([-1, 0], 4) == [3, 0]
    empty = np.array([], dtype=int)
    assert _slice._as_indices(empty, 4) is empty
    with pytest.raises(IndexError):
        _slice._as_indices([4], 4)
    with pytest.raises(ValueError):
        _slice._as_indices([True], 3)
    assert _slice._as_key_indices(None, ('a', 'b')) is None
    assert _slice._as_key_indices(('b', -2), ('a', 'b')) == (1, 0)
    with pytest.raises(KeyError):
        _slice._as_key_indices(('c',), ('a', 'b'))
    rows = list(range(10))
    for a, b in [(slice(1, 9, 2), slice(1, None)), (slice(8, 0, -3), [0, 2]),
                 ([5, 3, 1], slice(None, None, -1)), ([5, 3, 1], [2, 0]), (None, [1]),
                 (slice(2, 5), None)]:
        view = rows if a is None else (rows[a] if isinstance(a, slice) else [rows[i] for i in a])
        expected = view if b is None else (
            view[b] if isinstance(b, slice) else [view[i] for i in b])
        merged = _slice._merge_indices(a, b, 10, len(view))
        got = rows[merged] if isinstance(merged, slice) else [rows[i] for i in merged]
        assert got == expected, (a, b)
    assert _slice._merge_indices(None, None, 3, 3) is None
    assert _slice._merge_key_indices((2, 0, 1), (1, 2)) == (0, 1)
    assert _slice._merge_key_indices(None, (1,)) == (1,)
    assert _slice._merge_key_indices((3,), None) == (3,)


def test_tabular_make_dataset_and_as_array(chainer):
    # As in Chainer, the package's name from_data is the function: import the module.
    from_data = importlib.import_module('chainer.dataset.tabular.from_data')
    tabular_dataset = importlib.import_module('chainer.dataset.tabular.tabular_dataset')
    column = from_data._make_dataset('a', np.arange(4), None)
    assert column.keys == ('a',) and len(column) == 4 and column[2] == 2
    squares = from_data._make_dataset('sq', lambda i: i * i, 5)
    assert squares[3] == 9
    unnamed = from_data._make_dataset(None, [7, 8], None)
    assert unnamed.keys[0].startswith('_') and unnamed[1] == 8
    with pytest.raises(ValueError):
        from_data._make_dataset(None, lambda i: i, 3)  # a callable needs a key
    array = np.arange(3)
    assert tabular_dataset._as_array(array) is array
    converted = tabular_dataset._as_array([1, 2])
    assert isinstance(converted, np.ndarray) and converted.tolist() == [1, 2]


# -- chainer.training.extensions ------------------------------------------------------------------

def test_util_progress_bar_draws_in_place(chainer):
    import io
    from chainer.training.extensions import util

    class TwoLines(util.ProgressBar):
        def get_lines(self):
            return ['a\n', 'b\n']

    out = io.StringIO()
    bar = TwoLines(out=out)
    bar.update()
    assert out.getvalue() == '\033[Ja\nb\n\033[2A'
    bar.close()
    assert out.getvalue().endswith('\033[2A\033[J')
    speed_t, speed_e = bar.update_speed(0, 0.0)
    assert speed_t == float('inf')  # no time has passed since the first record
    bar._recent_timing[0] = (0, 0.0, bar._recent_timing[0][2] - 2.0)
    speed_t, speed_e = bar.update_speed(10, 0.5)
    assert speed_t == pytest.approx(5.0, rel=0.01) and speed_e == pytest.approx(0.25, rel=0.01)
    with pytest.raises(TypeError):
        util.ProgressBar()  # get_lines is abstract


def test_trainer_and_iterator_progress_bars(chainer):
    import io
    from types import SimpleNamespace
    from chainer.training.extensions import evaluator, progress_bar
    out = io.StringIO()
    bar = progress_bar._TrainerProgressBar(bar_length=10, out=out)
    bar.training_length = (20, 'iteration')
    bar.trainer = SimpleNamespace(updater=SimpleNamespace(iteration=5, epoch=0,
                                                          epoch_detail=0.5))
    lines = bar.get_lines()
    assert lines[0] == '     total [##........] 25.00%\n'
    assert lines[1] == 'this epoch [#####.....] 50.00%\n'
    assert lines[2] == '         5 iter, 0 epoch / 20 iterations\n'
    assert 'iters/sec. Estimated time to finish: ' in lines[3]

    it = SimpleNamespace(current_position=3, epoch_detail=0.75, _epoch_size=4)
    ibar = evaluator._IteratorProgressBar(it, bar_length=4, out=out)
    lines = ibar.get_lines()
    assert lines[:2] == ['validation [###.] 75.00%\n', '         3 / 4 iterations\n']
    with pytest.raises(TypeError, match='current_position'):
        evaluator._IteratorProgressBar(object())


@pytest.mark.parametrize('module_name', ['plot_report', 'variable_statistics_plot'])
def test_matplotlib_probe_and_check(chainer, module_name, monkeypatch, capsys):
    import sys
    module = importlib.import_module('chainer.training.extensions.' + module_name)
    from chainlite.training.extensions import plot_report as lite_plot_report
    monkeypatch.setattr(module, '_available', None)
    monkeypatch.setattr(lite_plot_report, '_noted', set())
    module._check_available()
    assert module._available is (importlib.util.find_spec('matplotlib') is not None)
    monkeypatch.setitem(sys.modules, 'matplotlib', None)  # as if it were not installed
    module._try_import_matplotlib()
    assert module._available is False
    # Said once from here (the first check above already said it where matplotlib is absent).
    monkeypatch.setattr(lite_plot_report, '_noted', set())
    capsys.readouterr()
    module._check_available()
    module._check_available()
    assert capsys.readouterr().err.count('matplotlib is not installed') == 1


# -- chainer.iterators ----------------------------------------------------------------------------

def test_statemachine_sweeps_and_repeats(chainer):
    from chainer.iterators import _statemachine
    state = _statemachine.IteratorState(0, 0, False, None)
    state, indices = _statemachine.iterator_statemachine(state, 3, True, None, 4)
    assert indices.tolist() == [0, 1, 2] and state == (3, 0, False, None)
    state, indices = _statemachine.iterator_statemachine(state, 3, True, None, 4)
    assert indices.tolist() == [3, 0, 1] and state.epoch == 1 and state.is_new_epoch
    order = np.array([2, 0, 1])
    state = _statemachine.IteratorState(0, 0, False, order)
    state, indices = _statemachine.iterator_statemachine(
        state, 5, False, lambda o, i: o[::-1], 3)
    assert indices.tolist() == [2, 0, 1] and state.order.tolist() == [1, 0, 2]
    assert _statemachine.iterator_statemachine(state, 5, False, None, 3) == (state, None)


class _Pipeline:
    batch_size = 2

    def __init__(self):
        self.built = 0
        self.runs = 0

    def build(self):
        self.built += 1

    def epoch_size(self):
        return {'reader': 5}

    def run(self):
        self.runs += 1
        return ['batch %d' % self.runs]


def test_dali_iterator_drives_the_pipeline(chainer):
    from chainer.iterators import dali_iterator
    assert chainer.iterators.DaliIterator is dali_iterator.DaliIterator
    pipeline = _Pipeline()
    with pytest.warns(FutureWarning, match='experimental'):
        it = chainer.iterators.DaliIterator(pipeline, repeat=False)
    assert it.previous_epoch_detail is None and it.repeat is False
    batches = list(it)
    assert batches == [['batch 1'], ['batch 2'], ['batch 3']] and pipeline.built == 1
    assert it.epoch == 1 and it.is_new_epoch and it.current_position == 0
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', FutureWarning)
        repeating = chainer.iterators.DaliIterator(_Pipeline())
    for _ in range(3):
        next(repeating)
    assert repeating.epoch == 1 and repeating.current_position == 1
    assert repeating.epoch_detail == pytest.approx(1.2)
    assert repeating.previous_epoch_detail == pytest.approx(0.8)
    saved = {}
    repeating.serialize(lambda key, value: saved.setdefault(key, value))
    assert saved['current_position'] == 1 and saved['epoch'] == 1
    repeating.reset()
    assert repeating.epoch_detail == 0 and repeating.previous_epoch_detail is None


def test_multiprocess_iterator_pack_measure_unpack(chainer):
    from multiprocessing import sharedctypes
    from chainer.iterators import multiprocess_iterator as mi
    a, b = np.arange(6, dtype=np.float32).reshape(2, 3), np.arange(4, dtype=np.int64)
    assert mi._measure((a, 1, b)) == a.nbytes + b.nbytes
    assert mi._measure({'a': a, 'n': 3}) == a.nbytes
    assert mi._measure(a) == 0  # a bare array is not measured, as in Chainer
    mem = sharedctypes.RawArray('b', 64)
    packed = mi._pack((a, 'label', b), mem, 8, 64)
    assert isinstance(packed[0], mi._PackedNdarray) and packed[1] == 'label'
    restored = mi._unpack(packed, mem)
    np.testing.assert_array_equal(restored[0], a)
    np.testing.assert_array_equal(restored[2], b)
    assert mi._unpack(mi._pack({'a': a}, mem, 0, 64), mem)['a'].shape == (2, 3)
    with pytest.warns(UserWarning, match='Shared memory size is too small'):
        over = mi._pack((a, b), mem, 40, 64)
    assert isinstance(over[0], mi._PackedNdarray) and isinstance(over[1], np.ndarray)
    assert mi._pack(a, sharedctypes.RawArray('b', 0), 0, 0) is a
    with pytest.raises(ValueError, match='too small'):
        mi._PackedNdarray(a, mem, 60)
    # The pool side: a worker's globals, then one task.
    mi._fetch_setup([(a, 0), (b, 1)], 64, sharedctypes.RawArray('b', 128))
    try:
        loaded = mi._fetch_run((1, 0))
        assert isinstance(loaded[0], mi._PackedNdarray) and loaded[0].offset == 64
    finally:
        import signal
        signal.signal(signal.SIGINT, signal.default_int_handler)
        mi._fetch_setup(None, None, None)
    assert mi._report_pid(None) == __import__('os').getpid()
    with pytest.warns(chainer.iterators.MultiprocessIterator.TimeoutWarning, match='Stalled'):
        mi._raise_timeout_warning()


def test_multiprocess_iterator_communicator(chainer):
    from chainer.iterators import multiprocess_iterator as mi
    comm = mi._Communicator(n_prefetch=2, dataset_timeout=None)
    status, state, count = comm.check()
    assert (status, state, count) == (mi._Communicator.STATUS_CONTINUE, None, 0)
    comm.put('batch 0', 'state 0', 0)
    assert comm.get() == ('batch 0', 'state 0')
    comm.reset('fresh')
    comm.put('stale', 'old', 0)  # made before the reset: dropped
    assert comm.check() == (mi._Communicator.STATUS_RESET, 'fresh', 1)
    comm.put('batch 1', 'state 1', 1)
    assert comm.get() == ('batch 1', 'state 1')
    assert not comm.is_terminated
    comm.terminate()
    assert comm.is_terminated


def test_multiprocess_iterator_prefetch_loop(chainer):
    from chainer.iterators import multiprocess_iterator as mi
    from chainer.iterators import _statemachine
    dataset = [(np.full(2, i, np.float32), i) for i in range(5)]
    comm = mi._Communicator(n_prefetch=1, dataset_timeout=None)
    loop = mi._PrefetchLoop(dataset, 2, False, 1, 1, None, comm, None, False, None)
    assert loop.measure_required() and loop.mem_bulk is None
    comm.reset(_statemachine.IteratorState(0, 0, False, None))
    batch, state = loop.measure(dataset_timeout=None)
    assert [label for _, label in batch] == [0, 1] and state.current_position == 2
    assert loop.mem_size == 8 and len(loop.mem_bulk) == 16
    loop.launch_thread()
    try:
        batches = []
        while True:
            batch, state = comm.get()
            if batch is None:
                break
            batches.append(batch)
    finally:
        comm.terminate()
        loop.terminate()
    assert [[label for _, label in b] for b in batches] == [[2, 3], [4]]
    np.testing.assert_array_equal(batches[0][1][0], [3.0, 3.0])
    assert loop.thread is None


# -- chainer.training.updaters.multiprocess_parallel_updater --------------------------------------

def test_multiprocess_parallel_updater_internals(chainer):
    from types import SimpleNamespace
    from chainer.training.updaters import multiprocess_parallel_updater as mpu
    calls = []

    def model(*args, **kwargs):
        calls.append((args, kwargs))
        return 'loss'

    assert mpu._calc_loss(model, (1, 2)) == 'loss' and calls[-1] == ((1, 2), {})
    assert mpu._calc_loss(model, {'x': 1}) == 'loss' and calls[-1] == ((), {'x': 1})
    assert mpu._calc_loss(model, 3) == 'loss' and calls[-1] == ((3,), {})
    for kernel in (mpu._memcpy_gather, mpu._memcpy_scatter):
        with pytest.raises(RuntimeError, match='CUDA'):
            kernel()
    with pytest.raises(RuntimeError, match='CUDA'):
        mpu._gather(chainer.links.Linear(2, 3), 'grad')
    with pytest.raises(RuntimeError, match='NCCL'):
        mpu._get_nccl_data_type(np.float32)
    with pytest.raises(RuntimeError, match='Unexpected data type'):
        mpu._get_nccl_data_type(np.int32)
    master = SimpleNamespace(converter=len, _master='model', _devices=['dev0', 'dev1'],
                             _mpu_iterators=['it0', 'it1'])
    worker = mpu._Worker(1, None, master)
    assert (worker.device, worker.iterator, worker.n_devices) == ('dev1', 'it1', 2)

    class Pipe:
        def recv(self):
            return 'nccl id', None

    worker.pipe = Pipe()
    with pytest.raises(RuntimeError, match='NCCL'):
        worker.setup()


def test_scatter_params_follows_chainers_sorted_order(chainer):
    from chainer.training.updaters import multiprocess_parallel_updater as mpu
    model = chainer.Chain()
    with model.init_scope():
        model.z = chainer.links.Linear(1, 1, nobias=True)
        model.a = chainer.links.Linear(1, 2, nobias=True)
    mpu.scatter_params(model, np.array([1.0, 2.0, 3.0], np.float32))
    # Sorted by path: /a/W (2 values) comes before /z/W.
    np.testing.assert_array_equal(model.a.W.array.ravel(), [1.0, 2.0])
    np.testing.assert_array_equal(model.z.W.array.ravel(), [3.0])


def test_link_to_device_visits_an_overridden_device_resident_accept(chainer):
    class Stateful(chainer.links.Linear):
        def __init__(self):
            super().__init__(2, 2)
            self.h = chainer.Variable(np.zeros(2, np.float32))
            self.table = np.ones(3)
            self.visits = 0

        def device_resident_accept(self, visitor):
            super().device_resident_accept(visitor)
            self.visits += 1
            visitor.visit_variable(self.h)
            self.table = visitor.visit_array(self.table)

    model = chainer.Sequential(Stateful())
    assert model.to_device('@numpy') is model
    assert model[0].visits == 1 and model[0].table.tolist() == [1.0, 1.0, 1.0]
    assert str(model[0].device) == '@numpy'
