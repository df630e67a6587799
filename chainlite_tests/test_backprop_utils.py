"""Tests of chainlite._backprop_utils: one backward step with gradients kept in lists."""
import heapq

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import _backprop_utils


def _f64(*values):
    return numpy.array(values, numpy.float64)


def _run_loop(y, leaves):
    # A whole backward pass driven by backprop_step, as a user's own loop would drive it.
    grads = {y.node: [chainlite.Variable(numpy.ones_like(y.array))]}
    heap = [(-y.creator_node.rank, 0, y.creator_node)]
    seen = {y.creator_node}
    count = 0
    while heap:
        f = heapq.heappop(heap)[2]
        gys = tuple(_backprop_utils._reduce(grads.pop(r(), [])) if r() is not None else None
                    for r in f.outputs)
        indexes = tuple(i for i, x in enumerate(f.inputs) if x.requires_grad)
        targets = {f.inputs[i]: grads.setdefault(f.inputs[i], []) for i in indexes}
        _backprop_utils.backprop_step(f, indexes, gys, targets, False)
        for x in targets:
            c = x.creator_node
            if c is not None and c not in seen:
                seen.add(c)
                count += 1
                heapq.heappush(heap, (-c.rank, count, c))
    return [_backprop_utils._reduce(grads.get(x.node, [])) for x in leaves]


def test_a_loop_of_steps_gives_the_gradients_of_backward():
    a = chainlite.Variable(_f64(0.5, -1.0, 2.0))
    b = chainlite.Variable(_f64(1.5, 0.25, -0.75))
    h = a * b
    y = F.sum(F.sin(h) * a + h)              # `a` and `h` reach y along two paths each
    ga, gb = _run_loop(y, [a, b])
    y.backward()
    numpy.testing.assert_allclose(ga.array, a.grad)
    numpy.testing.assert_allclose(gb.array, b.grad)


def test_reduce_sums_in_place():
    grads = [chainlite.Variable(_f64(1, 2)), chainlite.Variable(_f64(10, 20)),
             chainlite.Variable(_f64(100, 200))]
    total = _backprop_utils._reduce(grads)
    numpy.testing.assert_array_equal(total.array, [111, 222])
    assert len(grads) == 1 and grads[0] is total
    assert _backprop_utils._reduce([]) is None


class _Scale(chainlite.FunctionNode):
    def forward(self, inputs):
        return inputs[0] * 2, inputs[0] * 3

    def backward(self, indexes, grad_outputs):
        g2, g3 = grad_outputs
        gx = None
        if g2 is not None:
            gx = g2 * 2
        if g3 is not None:
            gx = g3 * 3 if gx is None else gx + g3 * 3
        return gx,


class _ScaleAccumulating(_Scale):
    calls = 0

    def backward_accumulate(self, indexes, grad_outputs, grad_inputs):
        type(self).calls += 1
        gx, = self.backward(indexes, grad_outputs)
        g, = grad_inputs
        return (gx if g is None else gx + g),


@pytest.mark.parametrize('cls', [_Scale, _ScaleAccumulating])
def test_step_adds_to_the_gradients_received_so_far(cls):
    x = chainlite.Variable(_f64(1, 2))
    f = cls()
    f.apply((x,))
    received = [chainlite.Variable(_f64(100, 100))]
    gys = (chainlite.Variable(_f64(1, 1)), None)
    _backprop_utils.backprop_step(f, (0,), gys, {x.node: received}, False)
    assert len(received) == 1
    numpy.testing.assert_array_equal(received[0].array, [102, 102])
    if cls is _ScaleAccumulating:
        assert cls.calls == 1


def test_lazy_grad_sum_keeps_the_list():
    x = chainlite.Variable(_f64(1, 2))
    f = _Scale()
    f.apply((x,))
    received = [chainlite.Variable(_f64(100, 100))]
    with chainlite.using_config('lazy_grad_sum', True):
        _backprop_utils.backprop_step(
            f, (0,), (None, chainlite.Variable(_f64(1, 1))), {x.node: received}, False)
    assert len(received) == 2
    numpy.testing.assert_array_equal(_backprop_utils._reduce(received).array, [103, 103])


def test_step_checks_the_gradients():
    class Wrong(chainlite.FunctionNode):
        def __init__(self, result):
            self.result = result

        def forward(self, inputs):
            return inputs[0] * 1,

        def backward(self, indexes, grad_outputs):
            return self.result

    def step(result, received=(), debug=False):
        x = chainlite.Variable(_f64(1, 2))
        f = Wrong(result)
        f.apply((x,))
        _backprop_utils.backprop_step(f, (0,), (chainlite.Variable(_f64(1, 1)),),
                                      {x.node: list(received)}, debug)

    with pytest.raises(ValueError, match='shape of gradients'):
        step((chainlite.Variable(_f64(1, 2, 3)),))
    with pytest.raises(ValueError, match='dtype of gradients'):
        step((chainlite.Variable(numpy.ones(2, numpy.float32)),),
             [chainlite.Variable(_f64(1, 1))])
    with pytest.raises(ValueError, match='number of gradients'):
        step((None, None, None))
    with pytest.raises(ValueError, match='type of gradients'):
        step((_f64(1, 1),), debug=True)
    step((_f64(1, 1),))                      # arrays are accepted outside debug mode
