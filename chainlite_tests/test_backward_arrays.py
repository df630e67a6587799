"""The two forms of backward agree to the bit.

A function may define ``_backward_arrays`` (see FunctionNode): backprop without double backprop
calls it on bare arrays instead of ``backward``. Here every such rule is run through a real
walk (``y.backward()``) and compared with ``backward`` on Variables, which ``grad`` with
``enable_double_backprop=True`` calls; the test at the end fails when a rule is added without
a case here.
"""
import importlib
import pkgutil

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import function_node
from chainlite.functions.rnn import lstm as lstm_function

def _rand(shape, dtype, seed, low=-1.0, high=1.0):
    return numpy.random.RandomState(seed).uniform(low, high, shape).astype(dtype)


def _dropout(x):
    mask = (numpy.arange(x.size).reshape(x.shape) % 3 != 0) * x.dtype.type(1.5)
    return F.dropout(x, 0.3, mask=mask.astype(x.dtype))


_IDS = numpy.array([[3, 0, 3], [1, 4, 3]], numpy.int32)


def _lstm_both_outputs(c, x):
    c_new, h = F.lstm(c, x)
    return c_new * 2.0 + h


# name: (function of the inputs, input shapes, the classes whose rules it runs)
CASES = {
    'add': (lambda a, b: a + b, [(3, 4), (3, 4)], ['Add']),
    'add_broadcast': (lambda a, b: a + b, [(3, 4), (1, 4)], ['Add']),
    'add_constant': (lambda a: a + 2.5, [(3, 4)], ['AddConstant']),
    'sub': (lambda a, b: a - b, [(3, 4), (4,)], ['Sub']),
    'rsub': (lambda a: 2.0 - a, [(3, 4)], ['SubFromConstant']),
    'mul': (lambda a, b: a * b, [(3, 4), (3, 1)], ['Mul']),
    'mul_constant': (lambda a: a * -1.5, [(3, 4)], ['MulConstant']),
    'mul_0d': (lambda a, b: a * b, [(), ()], ['Mul']),
    'neg': (lambda a: -a, [(3, 4)], ['Neg']),
    'sin': (F.sin, [(3, 4)], ['Sin']),
    'sin_0d': (F.sin, [()], ['Sin']),
    'cos': (F.cos, [(3, 4)], ['Cos']),
    'exp': (F.exp, [(3, 4)], ['Exp']),
    'log': (lambda a: F.log(a * a + 1), [(3, 4)], ['Log']),
    'tanh': (F.tanh, [(3, 4)], ['Tanh']),
    'sigmoid': (F.sigmoid, [(3, 4)], ['Sigmoid']),
    'relu': (F.relu, [(3, 4)], ['ReLU']),
    'dropout': (_dropout, [(3, 4)], ['Dropout']),
    'linear': (F.linear, [(5, 3), (2, 3), (2,)], ['LinearFunction']),
    'linear_nobias': (F.linear, [(5, 3), (2, 3)], ['LinearFunction']),
    'softmax_cross_entropy': (
        lambda a: F.softmax_cross_entropy(a, numpy.array([0, 2, 1, 2], numpy.int32)),
        [(4, 3)], ['SoftmaxCrossEntropy']),
    'softmax_cross_entropy_no_reduce': (
        lambda a: F.softmax_cross_entropy(a, numpy.array([0, 2, -1, 2], numpy.int32),
                                          reduce='no'),
        [(4, 3)], ['SoftmaxCrossEntropy']),
    'embed_id': (lambda W: F.embed_id(_IDS, W), [(5, 3)], ['EmbedIDFunction']),
    'embed_id_ignore_label': (lambda W: F.embed_id(_IDS, W, ignore_label=3), [(5, 3)],
                              ['EmbedIDFunction']),
    'lstm': (_lstm_both_outputs, [(3, 2), (3, 8)], ['LSTM']),
    # h only (no gradient for c) and a batch shorter than the state's
    'lstm_h_shorter_batch': (lambda c, x: F.lstm(c, x)[1], [(4, 2), (2, 8)], ['LSTM']),
    'gate_inputs': (lstm_function.gate_inputs, [(3, 2), (3, 4), (16, 2), (16, 4), (16,)],
                    ['_GateInputs']),
}

# Rules checked elsewhere, against define-by-run: a replayed static chain's node has no
# double backprop to compare with.
ELSEWHERE = {
    'StaticScheduleFunction': 'graph_optimizations_tests/test_static_graph_training_step.py',
}

# Rules of the nodes that backward creates, run by differentiating a gradient once more.
SECOND_ORDER = {
    'sin': (F.sin, ['_SinGrad']),
    'tanh': (F.tanh, ['_TanhGrad']),
}


def _both_ways(fn, xs, gy_seed):
    """(gradients by a walk on arrays, gradients by backward on Variables)."""
    vs = [chainlite.Variable(x.copy()) for x in xs]
    y = fn(*vs)
    gy = _rand(y.shape, y.dtype, gy_seed)
    y.grad = gy
    y.backward()
    by_arrays = [v.grad for v in vs]
    ws = [chainlite.Variable(x.copy()) for x in xs]
    y2 = fn(*ws)
    by_variables = chainlite.grad([y2], ws, [gy], enable_double_backprop=True)
    return by_arrays, [g.array for g in by_variables]


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize('name', sorted(CASES))
def test_rule_agrees_with_backward(name, dtype):
    fn, shapes, _ = CASES[name]
    xs = [_rand(s, dtype, i) for i, s in enumerate(shapes)]
    by_arrays, by_variables = _both_ways(fn, xs, 10)
    for a, v, x in zip(by_arrays, by_variables, xs):
        assert a.__class__ is numpy.ndarray
        assert a.dtype == x.dtype and a.shape == x.shape
        numpy.testing.assert_array_equal(a, v)


def test_rule_keeps_mixed_precision():
    # float16 data with a float32 weight: each gradient in its input's dtype, the float16
    # bias gradient summed in float32 (a float16 sum of these would overflow midway).
    x = _rand((64, 3), numpy.float16, 0)
    W = _rand((2, 3), numpy.float32, 1)
    b = _rand((2,), numpy.float16, 2)

    def fn(x, W, b):
        y = F.linear(x, W, b)
        return y * 1000.0

    by_arrays, by_variables = _both_ways(fn, [x, W, b], 3)
    assert [g.dtype for g in by_arrays] == [numpy.float16, numpy.float32, numpy.float16]
    for a, v in zip(by_arrays, by_variables):
        numpy.testing.assert_array_equal(a, v)
    assert numpy.isfinite(by_arrays[2]).all()


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('name', sorted(SECOND_ORDER))
def test_second_order_rule_agrees_with_backward(name, dtype):
    fn, _ = SECOND_ORDER[name]
    x0 = _rand((3, 4), dtype, 0)
    gy0 = _rand((3, 4), dtype, 1)
    ggx = _rand((3, 4), dtype, 2)
    results = []
    for arrays in (True, False):
        x = chainlite.Variable(x0.copy())
        gy = chainlite.Variable(gy0.copy())
        gx, = chainlite.grad([fn(x)], [x], [gy], enable_double_backprop=True)
        if arrays:
            gx.grad = ggx
            gx.backward()
            results.append((x.grad, gy.grad))
        else:
            gxx, ggy = chainlite.grad([gx], [x, gy], [ggx], enable_double_backprop=True)
            results.append((gxx.array, ggy.array))
    for a, v in zip(*results):
        numpy.testing.assert_array_equal(a, v)


def test_a_walk_with_retained_gradients_keeps_variables():
    # retain_grad stores Variables on intermediate nodes even when the walk holds arrays.
    x = chainlite.Variable(numpy.array([0.5, 1.5], numpy.float32))
    h = F.sin(x)
    y = F.sum(h * 2.0)
    y.backward(retain_grad=True)
    assert isinstance(h.grad_var, chainlite.Variable)
    numpy.testing.assert_array_equal(h.grad, numpy.full(2, 2.0, numpy.float32))
    numpy.testing.assert_array_equal(x.grad, 2.0 * numpy.cos(x.array))


def test_rule_returning_a_scalar_is_made_an_array():
    x = chainlite.Variable(numpy.array(0.25, numpy.float64))
    y = F.exp(F.sin(x))
    y.backward()
    assert x.grad.__class__ is numpy.ndarray and x.grad.shape == ()
    numpy.testing.assert_allclose(x.grad, numpy.exp(numpy.sin(0.25)) * numpy.cos(0.25))


def test_function_hooks_see_backward_on_variables():
    # With a function hook the walk calls backward() (the hook's contract), not the rule.
    seen = []

    class Hook(chainlite.FunctionHook):
        name = 'probe'

        def backward_preprocess(self, function, in_data, out_grad):
            seen.append(type(function).__name__)

    x = chainlite.Variable(numpy.array([0.5], numpy.float32))
    with Hook():
        F.sin(x).backward()
    assert seen == ['Sin']
    numpy.testing.assert_array_equal(x.grad, numpy.cos(x.array))


def _subclasses(cls):
    stack, found = [cls], []
    while stack:
        c = stack.pop()
        for s in c.__subclasses__():
            found.append(s)
            stack.append(s)
    return found


def test_every_rule_is_checked_here():
    import chainlite.functions as functions_package
    for m in pkgutil.walk_packages(functions_package.__path__, 'chainlite.functions.'):
        importlib.import_module(m.name)
    importlib.import_module('chainlite.graph_optimizations.static_graph')
    with_rules = {c.__name__ for c in _subclasses(function_node.FunctionNode)
                  if c.__module__.startswith('chainlite.') and
                  '_backward_arrays' in c.__dict__}
    covered = {n for _, _, names in CASES.values() for n in names}
    covered |= {n for _, names in SECOND_ORDER.values() for n in names}
    covered |= set(ELSEWHERE)
    assert with_rules - covered == set(), 'rules without a case in this file'
    assert covered - with_rules == set(), 'cases naming classes without a rule'


def test_retained_output_gradient_is_the_variable_given():
    # As Chainer: backward(retain_grad=True) leaves an output's grad_var the very object set.
    x = chainlite.Variable(numpy.array([0.5, 1.5], numpy.float32))
    y = F.sin(x) * 3.0
    seed = chainlite.Variable(numpy.array([1.0, 2.0], numpy.float32))
    y.grad_var = seed
    y.backward(retain_grad=True)
    assert y.grad_var is seed
    numpy.testing.assert_array_equal(x.grad, 3.0 * numpy.cos(x.array) * seed.array)
