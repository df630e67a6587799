"""A whole training step under static_graph: the replayed backward and the optimizers' updates.

The step is the yardstick's: ``loss = F.softmax_cross_entropy(model(x), t);
model.cleargrads(); loss.backward(); optimizer.update()``, compared bit for bit with the same
step run define-by-run (``use_static_graph`` off), in float32 and float64.
"""
import numpy as np
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import optimizers
from chainlite.graph_optimizations import static_graph as sg


class SmallMLP(chainlite.Chain):

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(12, 16)
            self.l2 = L.Linear(16, 16)
            self.l3 = L.Linear(16, 5)

    @chainlite.static_graph
    def forward(self, x):
        h = F.relu(self.l1(x))
        h = F.relu(self.l2(h))
        return self.l3(h)


_OPTIMIZERS = {
    'Adam': lambda: optimizers.Adam(),
    'MomentumSGD': lambda: optimizers.MomentumSGD(lr=0.05, momentum=0.9),
    'SGD': lambda: optimizers.SGD(lr=0.1),
}


def _steps(dtype, make_optimizer, static, steps=5, retain_grad=False):
    """Losses, gradients (and the output's, with retain_grad) and parameters of a few steps."""
    np.random.seed(4)
    with chainlite.using_config('dtype', dtype):
        model = SmallMLP()
    opt = make_optimizer().setup(model)
    rs = np.random.RandomState(5)
    x = rs.rand(6, 12).astype(dtype)
    t = rs.randint(0, 5, 6).astype(np.int32)
    record = []
    with chainlite.using_config('use_static_graph', static):
        for _ in range(steps):
            y = model(x)
            loss = F.softmax_cross_entropy(y, t)
            model.cleargrads()
            loss.backward(retain_grad=retain_grad)
            record.append(loss.array.copy())
            if retain_grad:
                record.append(y.grad.copy())
            record.extend(p.grad.copy() for p in model.params())
            opt.update()
            record.extend(p.array.copy() for p in model.params())
    return model, record


def _assert_identical(a, b):
    assert len(a) == len(b)
    for u, v in zip(a, b):
        assert u.dtype == v.dtype and u.shape == v.shape
        assert np.array_equal(u, v), np.abs(u - v).max()


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('name', sorted(_OPTIMIZERS))
def test_training_step_matches_define_by_run(dtype, name, monkeypatch):
    _, dbr = _steps(dtype, _OPTIMIZERS[name], static=False)
    # The replayed node's backward runs on the walk's arrays: backward() on Variables (the
    # fallback for hooks) is never called.
    calls = []
    monkeypatch.setattr(sg.StaticScheduleFunction, 'backward',
                        lambda self, *a: calls.append(a))
    model, static = _steps(dtype, _OPTIMIZERS[name], static=True)
    _assert_identical(dbr, static)
    assert calls == []
    assert model.l1.W.dtype == dtype and model.l1.W.grad.dtype == dtype
    scheds, = model.schedule_manager.schedules.values()
    assert len(scheds) == 1 and scheds[0].back_ops is not None


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_retain_grad_keeps_the_output_gradient(dtype):
    _, dbr = _steps(dtype, _OPTIMIZERS['Adam'], static=False, retain_grad=True)
    _, static = _steps(dtype, _OPTIMIZERS['Adam'], static=True, retain_grad=True)
    _assert_identical(dbr, static)


def test_hook_during_backward_only_falls_back_with_the_same_results():
    results = []
    for static, hooked in ((False, False), (True, True)):
        np.random.seed(4)
        model = SmallMLP()
        opt = optimizers.Adam().setup(model)
        x = np.random.RandomState(5).rand(6, 12).astype(np.float32)
        t = np.arange(6, dtype=np.int32) % 5
        out = []
        with chainlite.using_config('use_static_graph', static):
            for _ in range(3):
                loss = F.softmax_cross_entropy(model(x), t)
                model.cleargrads()
                if hooked:
                    hook = chainlite.function_hooks.TimerHook()
                    with hook:
                        loss.backward()
                    # The hook saw the schedule's node: backward ran through its Variables.
                    assert 'StaticScheduleFunction' in [name for name, _ in hook.call_history]
                else:
                    loss.backward()
                out.extend(p.grad.copy() for p in model.params())
                opt.update()
        results.append(out + [p.array.copy() for p in model.params()])
    _assert_identical(results[0], results[1])


def test_grad_leaves_parameters_untouched_and_matches_define_by_run():
    found = []
    for static in (False, True):
        np.random.seed(4)
        model = SmallMLP()
        x = np.random.RandomState(5).rand(6, 12).astype(np.float32)
        t = np.arange(6, dtype=np.int32) % 5
        with chainlite.using_config('use_static_graph', static):
            for _ in range(2):
                loss = F.softmax_cross_entropy(model(x), t)
                model.cleargrads()
                gW, gb = chainlite.grad([loss], [model.l2.W, model.l3.b])
        assert model.l2.W.grad is None and model.l1.W.grad is None
        found.append([gW.array, gb.array])
    _assert_identical(found[0], found[1])


def test_a_second_step_without_cleargrads_accumulates_as_define_by_run():
    results = []
    for static in (False, True):
        np.random.seed(4)
        model = SmallMLP()
        x = np.random.RandomState(5).rand(6, 12).astype(np.float32)
        t = np.arange(6, dtype=np.int32) % 5
        model.cleargrads()
        with chainlite.using_config('use_static_graph', static):
            for _ in range(3):
                F.softmax_cross_entropy(model(x), t).backward()
        results.append([p.grad.copy() for p in model.params()])
    _assert_identical(results[0], results[1])


def test_a_replaced_parameter_or_link_records_again():
    np.random.seed(4)
    model = SmallMLP()
    x = np.random.RandomState(5).rand(6, 12).astype(np.float32)
    model(x)
    model(x)
    first, = model.schedule_manager.schedules.values()
    assert len(first) == 1
    old = first[0]
    # A new Parameter object for l2.W (same shape): the schedule holds the old one.
    with model.l2.init_scope():
        model.l2.W = chainlite.Parameter(np.full((16, 16), 0.01, np.float32))
    y = model(x)
    with chainlite.using_config('use_static_graph', False):
        expected = model(x)
    np.testing.assert_array_equal(y.array, expected.array)
    scheds, = model.schedule_manager.schedules.values()
    assert old not in scheds and any(model.l2.W is p for p in scheds[0].params)
    # A new child link in place of l3.
    with model.init_scope():
        model.l3 = L.Linear(16, 5, initialW=np.ones((5, 16), np.float32))
    y = model(x)
    with chainlite.using_config('use_static_graph', False):
        expected = model(x)
    np.testing.assert_array_equal(y.array, expected.array)
    scheds, = model.schedule_manager.schedules.values()
    assert any(model.l3.W is p for p in scheds[-1].params)


class StaticStack(chainlite.ChainList):

    def __init__(self):
        super().__init__(L.Linear(12, 8), L.Linear(8, 5))

    @chainlite.static_graph
    def forward(self, x):
        return self[1](F.relu(self[0](x)))


def test_a_replaced_link_of_a_chain_list_records_again():
    np.random.seed(4)
    model = StaticStack()
    x = np.random.RandomState(5).rand(6, 12).astype(np.float32)
    model(x)
    model(x)
    model._children[1] = L.Linear(8, 5, initialW=np.ones((5, 8), np.float32))
    y = model(x)
    with chainlite.using_config('use_static_graph', False):
        expected = model(x)
    np.testing.assert_array_equal(y.array, expected.array)


def _weight_decay_steps(static, clear, hooked=False, loss_scale=None):
    # l1.W is also used outside the chain (an L2 term of the loss): its gradient has two
    # summands, the schedule's and the walk's.
    np.random.seed(4)
    model = SmallMLP()
    opt = optimizers.SGD(lr=0.1).setup(model)
    x = np.random.RandomState(5).rand(6, 12).astype(np.float32)
    t = np.arange(6, dtype=np.int32) % 5
    seen_W, seen_b = [], []
    if hooked:
        model.l2.W.register_hook(lambda g: seen_W.append(g.array.copy()))
        model.l3.b.register_post_accumulate_grad_hook(lambda p: seen_b.append(p.grad.copy()))
    out = []
    with chainlite.using_config('use_static_graph', static):
        for step in range(3):
            loss = F.softmax_cross_entropy(model(x), t) + 1e-3 * F.sum(model.l1.W ** 2)
            if clear or step == 0:
                model.cleargrads()
            loss.backward(loss_scale=loss_scale)
            out.extend(p.grad.copy() for p in model.params())
            out.extend([np.array(p._node._loss_scale or 0.0) for p in model.params()])
            opt.update()
    # (each hook's calls in order; the walk may call the two hooks in another order)
    return out + [p.array.copy() for p in model.params()] + seen_W + seen_b


@pytest.mark.parametrize('clear', [True, False])
@pytest.mark.parametrize('hooked', [False, True])
@pytest.mark.parametrize('loss_scale', [None, 8.0])
def test_parameters_used_outside_the_chain_hooks_and_loss_scale(clear, hooked, loss_scale):
    dbr = _weight_decay_steps(False, clear, hooked, loss_scale)
    static = _weight_decay_steps(True, clear, hooked, loss_scale)
    _assert_identical(dbr, static)
    # 3 steps: 6 gradients, 6 loss scales; 6 parameters; each hook ran at every step.
    assert len(static) == 3 * 12 + 6 + (6 if hooked else 0)


def test_parameters_gradients_are_stored_by_the_schedule_inside_backward_only(monkeypatch):
    # In backward() the schedule stores the parameters' gradients itself; grad() gets them
    # back from the walk, with nothing stored.
    np.random.seed(4)
    model = SmallMLP()
    x = np.random.RandomState(5).rand(6, 12).astype(np.float32)
    t = np.arange(6, dtype=np.int32) % 5
    stored = []
    original = sg.StaticScheduleFunction._store_parameter_grads

    def spy(self, indexes, gxs, loss_scale):
        ret = original(self, indexes, gxs, loss_scale)
        stored.append(sum(g is None for g in ret) - sum(g is None for g in gxs))
        return ret

    monkeypatch.setattr(sg.StaticScheduleFunction, '_store_parameter_grads', spy)
    for _ in range(2):
        model.cleargrads()
        F.softmax_cross_entropy(model(x), t).backward()
    assert stored == [6, 6]
    model.cleargrads()
    chainlite.grad([F.softmax_cross_entropy(model(x), t)], [model.l1.W])
    assert stored == [6, 6] and model.l1.W.grad is None


def test_a_chain_list_given_new_children_records_again():
    np.random.seed(4)
    model = StaticStack()
    x = np.random.RandomState(5).rand(6, 12).astype(np.float32)
    model(x)
    model(x)
    sched = model.schedule_manager.schedules[next(iter(model.schedule_manager.schedules))][0]
    assert any(h is model.__dict__ for h in sched.holders)  # the list itself is watched
    # A new list of children (what ChainList does when it relinks its layers).
    model._children = [model._children[0],
                       L.Linear(8, 5, initialW=np.ones((5, 8), np.float32))]
    y = model(x)
    with chainlite.using_config('use_static_graph', False):
        expected = model(x)
    np.testing.assert_array_equal(y.array, expected.array)
