"""Chainer 7.8.1 names of the core, datasets, iterators, training and ChainerMN, under compat.

Each test checks what a name added for ``test_chainer_names.py`` does, as Chainer does it on a
machine without a GPU or ChainerX.
"""
import importlib
import warnings

import numpy as np
import pytest

import chainlite
from chainlite import compat


@pytest.fixture
def chainer():
    compat.install()
    try:
        yield importlib.import_module('chainer')
    finally:
        compat.uninstall()


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
