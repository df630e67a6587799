"""Parameters' gradients left to the end of backward (function_node.DeferredGrad).

A weight used k times gets its k products stacked into one when backward ends; the sum is
the same up to rounding, each use's rule runs once in all, and wherever a gradient has to
exist as an array before that (a non-leaf, a budget spent, backward_accumulate, grad()) it
is computed on arrival.
"""
import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import backprop
from chainlite import function_node
from chainlite.functions.connection import linear as linear_module

DeferredGrad = function_node.DeferredGrad


def _rand(shape, dtype=numpy.float64, seed=0):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.fixture
def weight_products(monkeypatch):
    # Records the row count of every weight product computed.
    rows = []
    rule = linear_module._weight_grad

    def counting(shape, gy, x):
        rows.append(len(gy))
        return rule(shape, gy, x)

    monkeypatch.setattr(linear_module, '_weight_grad', counting)
    return rows


def _shared_weight_loss(W, b, batches):
    return sum(F.sum(F.tanh(F.linear(x, W, b))) for x in batches)


def _expected_grads(W0, b0, batches):
    # By hand: each use's gy^T x and gy summed over rows, added up.
    gW, gb = numpy.zeros_like(W0), numpy.zeros_like(b0)
    for x in batches:
        y = numpy.tanh(x @ W0.T + b0)
        gy = 1 - y * y
        gW += gy.T @ x
        gb += gy.sum(axis=0)
    return gW, gb


@pytest.mark.parametrize('dtype,rtol', [(numpy.float32, 1e-5), (numpy.float64, 1e-12)])
def test_shared_weight_gets_one_product_over_all_uses(weight_products, dtype, rtol):
    batches = [_rand((n, 3), dtype, n) for n in (4, 1, 5, 2)]
    W = chainlite.Variable(_rand((2, 3), dtype, 10))
    b = chainlite.Variable(_rand((2,), dtype, 11))
    _shared_weight_loss(W, b, batches).backward()
    assert weight_products == [12]  # one product over the 4 + 1 + 5 + 2 rows
    assert W.grad.dtype == dtype and W.grad.shape == (2, 3)
    gW, gb = _expected_grads(W.array, b.array, batches)
    numpy.testing.assert_allclose(W.grad, gW, rtol=rtol)
    numpy.testing.assert_allclose(b.grad, gb, rtol=rtol)


def test_walk_on_variables_agrees(weight_products):
    # grad() with double backprop computes each use's product on its own.
    batches = [_rand((3, 3), numpy.float64, n) for n in range(3)]
    W = chainlite.Variable(_rand((2, 3), seed=10))
    b = chainlite.Variable(_rand((2,), seed=11))
    gW, gb = chainlite.grad([_shared_weight_loss(W, b, batches)], [W, b],
                            enable_double_backprop=True)
    assert weight_products == []  # _LinearGrad's nodes, not the deferred rule
    _shared_weight_loss(W, b, batches).backward()
    assert weight_products == [9]
    numpy.testing.assert_allclose(W.grad, gW.array, rtol=1e-13)
    numpy.testing.assert_allclose(b.grad, gb.array, rtol=1e-13)


def test_spent_budget_computes_products_on_arrival(weight_products, monkeypatch):
    batches = [_rand((3, 3), numpy.float64, n) for n in range(3)]
    W = chainlite.Variable(_rand((2, 3), seed=10))
    b = chainlite.Variable(_rand((2,), seed=11))
    monkeypatch.setattr(backprop, 'DEFERRED_BYTES', 0)
    _shared_weight_loss(W, b, batches).backward()
    assert weight_products == [3, 3, 3]
    gW, gb = _expected_grads(W.array, b.array, batches)
    numpy.testing.assert_allclose(W.grad, gW, rtol=1e-12)


def test_weight_made_by_a_function_gets_its_gradient_at_once(weight_products):
    batches = [_rand((3, 3), numpy.float64, n) for n in range(3)]
    W0 = chainlite.Variable(_rand((2, 3), seed=10))
    b = chainlite.Variable(_rand((2,), seed=11))
    W = W0 * 2.0  # not a leaf: its gradient flows on into Mul's backward
    _shared_weight_loss(W, b, batches).backward()
    assert weight_products == [3, 3, 3]
    gW, _ = _expected_grads(W.array, b.array, batches)
    numpy.testing.assert_allclose(W0.grad, 2.0 * gW, rtol=1e-12)


def test_deferred_and_dense_contributions_add_up():
    x = _rand((4, 3), seed=1)
    W = chainlite.Variable(_rand((2, 3), seed=10))
    loss = F.sum(F.linear(x, W)) + F.sum(W * W) + F.sum(F.linear(x * 2.0, W))
    loss.backward()
    expected = numpy.ones((4, 2)).T @ x + 2.0 * W.array + numpy.ones((4, 2)).T @ (x * 2.0)
    numpy.testing.assert_allclose(W.grad, expected, rtol=1e-12)


def test_existing_gradient_is_added_to():
    x = _rand((4, 3), seed=1)
    W = chainlite.Variable(_rand((2, 3), seed=10))
    for _ in range(2):
        (F.sum(F.linear(x, W)) + F.sum(F.linear(x, W))).backward()
    numpy.testing.assert_allclose(W.grad, 4.0 * numpy.ones((4, 2)).T @ x, rtol=1e-12)
    assert W.grad.__class__ is numpy.ndarray


def test_grad_returns_arrays_for_deferred_leaves():
    x = _rand((4, 3), seed=1)
    W = chainlite.Variable(_rand((2, 3), seed=10))
    gW, = chainlite.grad([F.sum(F.linear(x, W)) + F.sum(F.linear(x, W))], [W])
    assert gW.array.__class__ is numpy.ndarray
    numpy.testing.assert_allclose(gW.array, 2.0 * numpy.ones((4, 2)).T @ x, rtol=1e-12)
    assert W.grad is None


class _DoubleAccumulating(chainlite.FunctionNode):
    # y = 2 W, with a backward_accumulate that receives W's gradient so far.

    def forward(self, inputs):
        return inputs[0] * 2.0,

    def backward_accumulate(self, target_input_indexes, grad_outputs, grad_inputs):
        gx = grad_outputs[0] * 2.0
        self.received = grad_inputs[0]
        return (gx if grad_inputs[0] is None else gx + grad_inputs[0]),


def test_backward_accumulate_receives_a_computed_gradient():
    x = chainlite.Variable(_rand((4, 3), seed=1))
    W = chainlite.Variable(_rand((2, 3), seed=10))
    f = _DoubleAccumulating()
    y, = f.apply((W,))
    # The linear's product reaches W first (higher rank), then f's backward_accumulate.
    (F.sum(y) + F.sum(F.linear(F.tanh(F.tanh(x)), W))).backward()
    assert isinstance(f.received, chainlite.Variable)
    assert f.received.array.__class__ is numpy.ndarray
    expected = 2.0 + numpy.ones((4, 2)).T @ numpy.tanh(numpy.tanh(x.array))
    numpy.testing.assert_allclose(W.grad, expected, rtol=1e-12)


def _product(shape, a, b):
    return a.T @ b


def test_merge_order_does_not_change_the_bits():
    # The products are stacked by their forward order (seq), however they were merged.
    parts = [(seq, (_rand((n, 4), numpy.float32, seq), _rand((n, 3), numpy.float32, seq + 9)))
             for seq, n in ((3, 5), (1, 7), (2, 2), (0, 4))]

    def merged(order):
        d = None
        for k in order:
            seq, args = parts[k]
            g = DeferredGrad(_product, args, (4, 3), numpy.float32, seq)
            d = g if d is None else d + g
        return d.array()

    first = merged([0, 1, 2, 3])
    for order in ([3, 2, 1, 0], [1, 3, 0, 2], [2, 0, 3, 1]):
        numpy.testing.assert_array_equal(merged(order), first)
    stacked = sorted(parts)
    a = numpy.concatenate([p[1][0] for p in stacked])
    b = numpy.concatenate([p[1][1] for p in stacked])
    numpy.testing.assert_array_equal(first, a.T @ b)


def test_many_merges_are_computed_without_recursion():
    a, b = numpy.ones((1, 2)), numpy.ones((1, 3))
    d = DeferredGrad(_product, (a, b), (2, 3), a.dtype, 0)
    for seq in range(1, 20000):
        d = d + DeferredGrad(_product, (a, b), (2, 3), a.dtype, seq)
    numpy.testing.assert_array_equal(d.array(), numpy.full((2, 3), 20000.0))


def test_arrays_and_other_rules_add_as_dense_parts():
    a, b = _rand((3, 2), seed=1), _rand((3, 4), seed=2)
    dense = _rand((2, 4), seed=3)
    d = DeferredGrad(_product, (a, b), (2, 4), a.dtype, 0)
    for total in (dense + d, d + dense):
        assert total.__class__ is DeferredGrad
        numpy.testing.assert_allclose(total.array(), a.T @ b + dense, rtol=1e-14)

    def other(shape, a, b):
        return 2.0 * (a.T @ b)

    mixed = d + DeferredGrad(other, (a, b), (2, 4), a.dtype, 1)
    assert mixed.__class__ is numpy.ndarray
    numpy.testing.assert_allclose(mixed, 3.0 * (a.T @ b), rtol=1e-14)


def test_lstm_and_embedding_shared_over_time_steps(weight_products):
    # The language model's pattern: the walk on arrays agrees with the walk on Variables.
    rs = numpy.random.RandomState(0)
    ids = rs.randint(0, 7, (6, 3)).astype(numpy.int32)

    def run(double):
        model = chainlite.ChainList(L.EmbedID(7, 4), L.LSTM(4, 5), L.Linear(5, 7))
        for name, p in sorted(model.namedparams()):
            p.array[...] = _rand(p.shape, numpy.float32, seed=len(name))
        model.cleargrads()  # (a new parameter's gradient is NaN, as in Chainer)
        embed, lstm, out = model
        loss = 0
        for t in range(5):
            loss += F.softmax_cross_entropy(out(lstm(embed(ids[t]))), ids[t + 1])
        params = [p for _, p in sorted(model.namedparams())]
        if double:
            return [g.array for g in chainlite.grad([loss], params,
                                                    enable_double_backprop=True)]
        loss.backward()
        return [p.grad for p in params]

    by_arrays = run(False)
    # One product per weight: the output layer's and the LSTM's two (whose upward weight
    # serves a Linear at the first step and the fused gate products after it), 5 x 3 rows
    # each but the lateral weight's (no previous output at the first step).
    assert sorted(weight_products) == [12, 15, 15]
    for a, v in zip(by_arrays, run(True)):
        assert a.__class__ is numpy.ndarray and a.dtype == numpy.float32
        numpy.testing.assert_allclose(a, v, rtol=1e-4, atol=1e-6)
