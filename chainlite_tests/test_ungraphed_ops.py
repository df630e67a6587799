"""Ops that record nothing skip their node (function_node.apply_ufunc, x + c, x * c).

Without a graph to record, ``F.sin(x)`` and friends run their ufunc on the array directly.
These tests pin what must not change: the result is forward's to the bit, with the same dtype
and flags; the node path is taken whenever something could observe it (a graph, a hook,
debug mode) or the input is not a plain float array.
"""
import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import function_node
from chainlite.functions.activation import tanh
from chainlite.functions.math import cos, exp, log, sin

UFUNC_OPS = [(F.sin, sin.Sin), (F.cos, cos.Cos), (F.exp, exp.Exp), (F.log, log.Log),
             (F.tanh, tanh.Tanh)]


def _input(shape, dtype, requires_grad=True):
    data = numpy.random.RandomState(0).uniform(0.1, 2.0, shape).astype(dtype)
    return chainlite.Variable(data, requires_grad=requires_grad)


@pytest.mark.parametrize('shape', [(3, 4), (), (0,)])
@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize('fn,cls', UFUNC_OPS)
def test_ufunc_op_without_graph_equals_forward(fn, cls, dtype, shape):
    x = _input(shape, dtype)
    assert cls._check_mode == 1  # float inputs only: the one check apply_ufunc repeats
    expected, = cls().forward((x.array,))
    with chainlite.no_backprop_mode():
        y = fn(x)
    assert y.creator is None
    assert y.array.__class__ is numpy.ndarray
    assert y.dtype == dtype and y.shape == shape
    numpy.testing.assert_array_equal(y.array, expected)
    assert y.requires_grad  # as _apply1 leaves it for an input that requires one


@pytest.mark.parametrize('fn,cls', UFUNC_OPS)
def test_ufunc_op_input_without_gradient(fn, cls):
    x = _input((2,), numpy.float32, requires_grad=False)
    y = fn(x)
    assert y.creator is None and not y.requires_grad
    numpy.testing.assert_array_equal(y.array, cls().forward((x.array,))[0])


@pytest.mark.parametrize('fn,cls', UFUNC_OPS)
def test_ufunc_op_records_when_backprop_is_on(fn, cls):
    x = _input((2,), numpy.float32)
    y = fn(x)
    assert isinstance(y.creator, cls)


def test_ufunc_op_rejects_integers_as_before():
    x = chainlite.Variable(numpy.arange(3, dtype=numpy.int32))
    with chainlite.no_backprop_mode():
        with pytest.raises(chainlite.utils.type_check.InvalidType, match='sin'):
            F.sin(x)


def test_ufunc_op_takes_arrays():
    y = F.exp(numpy.array([0.0, 1.0], numpy.float32))
    numpy.testing.assert_array_equal(y.array, numpy.exp(numpy.array([0.0, 1.0], numpy.float32)))


@pytest.mark.parametrize('op', ['add', 'sub', 'mul'])
@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64, numpy.int32])
def test_constant_arithmetic_without_graph_equals_forward(op, dtype):
    x = chainlite.Variable(numpy.arange(6).reshape(2, 3).astype(dtype))
    with chainlite.no_backprop_mode():
        y = {'add': lambda: x + 1.5, 'sub': lambda: x - 2, 'mul': lambda: x * 3}[op]()
    # The forward of the node that the graph would record, on the same constant.
    recorded = {'add': lambda: x + 1.5, 'sub': lambda: x - 2, 'mul': lambda: x * 3}[op]()
    node = recorded.creator
    assert type(node).__name__ == ('MulConstant' if op == 'mul' else 'AddConstant')
    expected, = node.forward((x.array,))
    assert y.creator is None and y.dtype == x.dtype
    numpy.testing.assert_array_equal(y.array, expected)
    numpy.testing.assert_array_equal(
        y.array, {'add': x.array + dtype(1.5), 'sub': x.array - dtype(2),
                  'mul': x.array * dtype(3)}[op])


def test_a_ufunc_node_of_ones_own():
    # UfuncNode: set the ufunc and what backward needs; forward and the graph-free path
    # follow from it.
    class Square(function_node.UfuncNode):
        _ufunc = numpy.square
        _input_indexes_to_retain = (0,)

        def backward(self, indexes, grad_outputs):
            x, = self.get_retained_inputs()
            return 2.0 * x * grad_outputs[0],

    x = chainlite.Variable(numpy.array([1.5, -2.0], numpy.float32))
    y = function_node.apply_ufunc(Square, x)
    assert isinstance(y.creator, Square)
    numpy.testing.assert_array_equal(y.array, numpy.array([2.25, 4.0], numpy.float32))
    y.grad = numpy.ones(2, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, numpy.array([3.0, -4.0], numpy.float32))
    with chainlite.no_backprop_mode():
        z = function_node.apply_ufunc(Square, x)
    assert z.creator is None
    numpy.testing.assert_array_equal(z.array, y.array)
    with pytest.raises(chainlite.utils.type_check.InvalidType, match='Square'):
        function_node.apply_ufunc(Square, chainlite.Variable(numpy.arange(2)))


def test_constant_arithmetic_on_0d_gives_an_array():
    x = chainlite.Variable(numpy.array(2.0, numpy.float32), requires_grad=False)
    y = (x + 1.0) * 2.0
    assert y.array.__class__ is numpy.ndarray and y.shape == ()
    assert float(y.array) == 6.0 and not y.requires_grad


def test_function_hooks_still_see_ungraphed_ops():
    seen = []

    class Hook(chainlite.FunctionHook):
        name = 'probe'

        def forward_preprocess(self, function, in_data):
            seen.append(function.label)

    x = _input((2,), numpy.float32)
    with chainlite.no_backprop_mode(), Hook():
        F.tanh(F.sin(x) * 2.0 + 1.0)
    assert seen == ['sin', '_ * 2.0', '_ + 1.0', 'Tanh']


def test_debug_mode_still_checks_ungraphed_ops():
    x = chainlite.Variable(numpy.array([-1.0], numpy.float32))
    with chainlite.no_backprop_mode(), chainlite.using_config('debug', True), \
            numpy.errstate(invalid='ignore'):
        with pytest.raises(function_node.NonFiniteError, match='log'):
            F.log(x)
