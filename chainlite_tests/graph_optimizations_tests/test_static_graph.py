"""static_graph and static_code: a replayed chain computes what define-by-run computes."""
import contextlib
import warnings

import numpy as np
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import optimizers
from chainlite.graph_optimizations import static_graph as sg


class MLP(chainlite.Chain):

    def __init__(self, dropout=False, bn=False):
        super().__init__()
        self.dropout, self.bn_on, self.python_calls = dropout, bn, 0
        with self.init_scope():
            self.l1 = L.Linear(None, 20)
            self.l2 = L.Linear(20, 20)
            self.l3 = L.Linear(20, 5)
            if bn:
                self.bn = L.BatchNormalization(20)

    def forward(self, x):
        self.python_calls += 1
        h = F.relu(self.l1(x))
        if self.bn_on:
            h = self.bn(h)
        if self.dropout:
            h = F.dropout(h, 0.3)
        h = F.tanh(self.l2(h)) * 0.5 + h
        return self.l3(h)


class StaticMLP(MLP):
    forward = chainlite.static_graph(MLP.forward)


class CNN(chainlite.Chain):

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.c1 = L.Convolution2D(1, 4, 3, pad=1)
            self.bn = L.BatchNormalization(4)
            self.c2 = L.Convolution2D(4, 6, 3, stride=2)
            self.d = L.Deconvolution2D(6, 3, 2)
            self.fc = L.Linear(None, 5)

    def forward(self, x):
        h = F.relu(self.bn(self.c1(x)))
        h = F.max_pooling_2d(h, 2)
        h = F.dropout(F.sigmoid(self.c2(h)), 0.2)
        h = F.average_pooling_2d(self.d(h), 2)
        h = F.reshape(h, (h.shape[0], -1))
        return self.fc(F.leaky_relu(h))


class StaticCNN(CNN):
    forward = chainlite.static_graph(CNN.forward)


def _train(cls, shape, optimizer, steps=4, **kwargs):
    """Losses, test-mode outputs, parameters and statistics after a few training steps."""
    np.random.seed(3)
    model = cls(**kwargs)
    optimizer.setup(model)
    rs = np.random.RandomState(0)
    record = []
    for _ in range(steps):
        x = rs.rand(*shape).astype(np.float32)
        t = rs.randint(0, 5, shape[0]).astype(np.int32)
        loss = F.softmax_cross_entropy(model(x), t)
        model.cleargrads()
        loss.backward()
        record.append(loss.array.copy())
        record.extend(p.grad.copy() for p in model.params())
        optimizer.update()
    with chainlite.using_config('train', False), chainlite.no_backprop_mode():
        record.append(model(x).array.copy())
        record.append(model(x).array.copy())
    record.extend(p.array.copy() for _, p in sorted(model.namedparams()))
    for link in model.links():
        if isinstance(link, L.BatchNormalization):
            record.extend([link.avg_mean.copy(), link.avg_var.copy()])
    return model, record


def _assert_identical(a, b):
    assert len(a) == len(b)
    for u, v in zip(a, b):
        assert u.dtype == v.dtype and u.shape == v.shape
        assert np.array_equal(u, v), np.abs(u - v).max()


@pytest.mark.parametrize('dropout', [False, True])
@pytest.mark.parametrize('bn', [False, True])
def test_mlp_matches_define_by_run_bit_for_bit(dropout, bn):
    _, dbr = _train(MLP, (8, 7), optimizers.Adam(), dropout=dropout, bn=bn)
    model, static = _train(StaticMLP, (8, 7), optimizers.Adam(), dropout=dropout, bn=bn)
    _assert_identical(dbr, static)
    # Python ran once per schedule (train, test), not once per call.
    assert model.python_calls == 2


def test_cnn_matches_define_by_run_bit_for_bit():
    _, dbr = _train(CNN, (4, 1, 10, 10), optimizers.MomentumSGD(lr=0.1))
    _, static = _train(StaticCNN, (4, 1, 10, 10), optimizers.MomentumSGD(lr=0.1))
    _assert_identical(dbr, static)


def test_dropout_draws_new_masks_on_every_replay():
    model = StaticMLP(dropout=True)
    x = np.ones((4, 7), np.float32)
    model(x)  # recorded (and the lazy layer initialized from the same random state)
    np.random.seed(0)
    y1, y2 = model(x).array, model(x).array
    assert not np.array_equal(y1, y2)
    np.random.seed(0)
    assert np.array_equal(model(x).array, y1)


def test_replay_builds_one_node_over_inputs_and_parameters():
    model = StaticMLP()
    x = np.ones((3, 7), np.float32)
    model(x)
    y = model(x)
    f = y.creator
    assert isinstance(f, sg.StaticScheduleFunction)
    assert len(f.inputs) == 1 + len(list(model.params()))
    assert f.inputs[0].creator is None
    with chainlite.no_backprop_mode():
        model(x)
        z = model(x)
    assert z.creator is None
    assert model.python_calls == 2


def test_input_gradient_and_outside_graph():
    rs = np.random.RandomState(1)
    W = rs.rand(7, 7).astype(np.float32)
    grads = []
    for cls in (MLP, StaticMLP):
        np.random.seed(0)
        model = cls()
        for _ in range(3):
            x = chainlite.Variable(W.copy())
            h = F.sin(x)                      # a function before the static chain
            y = F.sum(model(h) ** 2)
            y.backward()
        grads.append(x.grad)
    assert np.array_equal(grads[0], grads[1])


def test_new_shapes_warn_and_record_again():
    model = StaticMLP()
    opt = optimizers.SGD().setup(model)
    for n in (4, 4):
        loss = F.sum(model(np.ones((n, 7), np.float32)))
        model.cleargrads()
        loss.backward()
        opt.update()
    with pytest.warns(UserWarning, match='new shapes'):
        y = model(np.ones((2, 7), np.float32))
    assert y.shape == (2, 5)
    assert len(model.schedule_manager.schedules) == 2
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        with chainlite.using_config('train', False):
            model(np.ones((2, 7), np.float32))  # another mode: no warning


def test_two_calls_before_backward():
    outs = []
    for cls in (MLP, StaticMLP):
        np.random.seed(0)
        model = cls()
        for _ in range(3):
            a = model(np.full((2, 7), 0.5, np.float32))
            b = model(np.full((2, 7), 2.0, np.float32))
            model.cleargrads()
            F.sum(a * b).backward()
        outs.append([p.grad.copy() for p in model.params()])
    _assert_identical(outs[0], outs[1])


def test_stale_backward_is_refused():
    model = StaticMLP()
    x = np.ones((2, 7), np.float32)
    y = model(x)
    F.sum(y).backward()
    y1 = model(x)
    model(x)  # replays the same schedule: y1's graph is stale only after its backward ran
    F.sum(y1).backward()
    y2 = model(x)
    model.schedule_manager.end_forward()
    model(x)
    with pytest.raises(RuntimeError, match='called again'):
        F.sum(y2).backward()


def test_double_backprop_needs_the_option():
    model = StaticMLP()
    x = chainlite.Variable(np.ones((2, 7), np.float32))
    model(x)
    y = F.sum(model(x) ** 2)
    with pytest.raises(RuntimeError, match='enable_double_backprop'):
        chainlite.grad([y], [x], enable_double_backprop=True)

    class Twice(MLP):
        forward = chainlite.static_graph(enable_double_backprop=True)(MLP.forward)

    model = Twice()
    y = F.sum(model(x) ** 2)
    gx, = chainlite.grad([y], [x], enable_double_backprop=True)
    F.sum(gx).backward()
    assert x.grad is not None


def test_config_switches_and_options():
    class Forced(MLP):
        forward = chainlite.static_graph(force_test_define_by_run=True,
                                         verbosity_level=0)(MLP.forward)

    x = np.ones((2, 7), np.float32)
    model = Forced()
    with chainlite.using_config('train', False):
        model(x)
        model(x)
    assert model.python_calls == 2
    model = StaticMLP()
    with chainlite.using_config('use_static_graph', False):
        model(x)
        y = model(x)
    assert model.python_calls == 2 and not isinstance(y.creator, sg.StaticScheduleFunction)
    with pytest.raises(TypeError, match='train'):
        chainlite.static_graph(train=True)
    with pytest.raises(TypeError, match='keyword options'):
        chainlite.static_graph(1, 2)


def test_minimize_cache_size_and_verbosity(capsys):
    class Small(MLP):
        forward = chainlite.static_graph(minimize_cache_size=True,
                                         verbosity_level=1)(MLP.forward)

    model = Small()
    x = np.ones((2, 7), np.float32)
    model(x)
    with chainlite.using_config('train', False):
        model(x)
    assert len(model.schedule_manager.schedules) == 1
    assert 'recorded a schedule' in capsys.readouterr().out
    assert 'ScheduleManager' in repr(model.schedule_manager)


def test_static_code_runs_every_call_on_current_arrays():
    seen = []

    @chainlite.static_code
    def square(inputs):
        seen.append(inputs[0].copy())
        return inputs[0] ** 2

    class WithCode(chainlite.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l = L.Linear(3, 3)

        @chainlite.static_graph
        def forward(self, x):
            h = self.l(x)
            sq = square(inputs=[h.array])
            return h * sq

    model = WithCode()
    for k in range(3):
        x = np.full((2, 3), float(k), np.float32)
        y = model(x)
        h = model.l.W.array @ x.T
        expected = (h.T + model.l.b.array) ** 3
        np.testing.assert_allclose(y.array, expected, rtol=1e-5)
    assert len(seen) == 3 and not np.array_equal(seen[0], seen[2])
    assert square(inputs=[np.full(2, 3.0)])[0] == 9.0  # outside a static chain: a plain call
    with pytest.raises(TypeError, match='func_name'):
        chainlite.static_code(bad=1)


def test_parameters_are_read_at_every_call_even_through_identity_ops():
    class Casting(chainlite.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l = L.Linear(3, 2)

        @chainlite.static_graph
        def forward(self, x):
            # A cast to the same dtype returns the parameter's own array.
            return F.linear(x, F.cast(self.l.W, x.dtype), self.l.b)

    model = Casting()
    x = np.ones((2, 3), np.float32)
    model(x)
    for k in range(3):
        model.l.W.array = np.full((2, 3), k, np.float32)     # rebound, not updated in place
        np.testing.assert_array_equal(model(x).array, np.full((2, 2), 3 * k, np.float32))
    model.l.W.array = np.ones((2, 3), np.float64)           # a new dtype: recorded again
    assert model(x).dtype == np.float32
    assert len(model.schedule_manager.schedules[next(iter(model.schedule_manager.schedules))]) == 1


class PlainMLP(chainlite.Chain):
    # Only functions with an array-level backward: the replay's backward needs no graph.

    def __init__(self):
        super().__init__()
        self.python_calls = 0
        with self.init_scope():
            self.l1 = L.Linear(7, 20)
            self.l2 = L.Linear(20, 5, nobias=True)

    def forward(self, x):
        self.python_calls += 1
        return self.l2(F.relu(self.l1(x)))


class StaticPlainMLP(PlainMLP):
    forward = chainlite.static_graph(PlainMLP.forward)


def test_backward_on_arrays_matches_define_by_run():
    _, dbr = _train(PlainMLP, (8, 7), optimizers.Adam())
    model, static = _train(StaticPlainMLP, (8, 7), optimizers.Adam())
    _assert_identical(dbr, static)
    sched = model.schedule_manager.schedules[next(iter(model.schedule_manager.schedules))][0]
    assert sched.back_steps is not None and len(sched.back_steps) == 3


def test_backward_on_arrays_gives_input_gradients_and_respects_hooks():
    rs = np.random.RandomState(1)
    xs = [rs.rand(4, 7).astype(np.float32) for _ in range(3)]
    grads = []
    for cls, hook in ((PlainMLP, False), (StaticPlainMLP, False), (StaticPlainMLP, True)):
        np.random.seed(0)
        model = cls()
        out = []
        for x in xs:
            xv = chainlite.Variable(x)
            y = F.sum(model(F.tanh(xv)) ** 2)
            model.cleargrads()
            if hook:
                with chainlite.function_hooks.TimerHook():
                    y.backward()
            else:
                y.backward()
            out += [xv.grad] + [p.grad.copy() for p in model.params()]
        grads.append(out)
    _assert_identical(grads[0], grads[1])
    _assert_identical(grads[0], grads[2])


class ActivationsMLP(PlainMLP):

    def forward(self, x):
        self.python_calls += 1
        h = F.dropout(F.tanh(self.l1(x)), 0.25)
        return self.l2(F.sigmoid(h))


class StaticActivationsMLP(ActivationsMLP):
    forward = chainlite.static_graph(ActivationsMLP.forward)


def test_backward_on_arrays_through_tanh_sigmoid_and_dropout():
    _, dbr = _train(ActivationsMLP, (8, 7), optimizers.MomentumSGD(lr=0.5))
    model, static = _train(StaticActivationsMLP, (8, 7), optimizers.MomentumSGD(lr=0.5))
    _assert_identical(dbr, static)
    sched = model.schedule_manager.schedules[next(iter(model.schedule_manager.schedules))][0]
    assert sched.back_steps is not None and len(sched.back_steps) == 5


def test_backward_on_arrays_with_mixed_precision():
    # float16 data through a float32 Linear: each gradient in its own input's dtype, the same
    # arrays as define-by-run's.
    def build():
        np.random.seed(5)
        return L.Linear(5, 6, initialW=chainlite.initializers.Normal(1, np.float32),
                        initial_bias=chainlite.initializers.Normal(1, np.float16))

    class Dyn(chainlite.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = build()

        def forward(self, x):
            return F.relu(self.l1(x))

    class Static(Dyn):
        forward = chainlite.static_graph(Dyn.forward)

    x = np.random.RandomState(0).rand(4, 5).astype(np.float16)
    gy = np.ones((4, 6), np.float16)
    results = []
    for cls in (Dyn, Static):
        model = cls()
        for _ in range(3):                   # the later calls replay the schedule
            xv = chainlite.Variable(x.copy())
            model.cleargrads()
            y = model(xv)
            y.grad = gy
            y.backward()
        assert xv.grad.dtype == np.float16 and model.l1.W.grad.dtype == np.float32
        assert model.l1.b.grad.dtype == np.float16
        results.append((xv.grad, model.l1.W.grad, model.l1.b.grad))
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_compiled_steps_match_define_by_run_in_both_float_dtypes(dtype):
    # Linear, ReLU, tanh, sigmoid and dropout replay as bare NumPy calls into reused buffers.
    class Dyn(PlainMLP):
        def forward(self, x):
            h = F.dropout(F.sigmoid(F.tanh(self.l1(x))), 0.25)
            return self.l2(F.relu(h))

    class Static(Dyn):
        forward = chainlite.static_graph(Dyn.forward)

    results = []
    for cls in (Dyn, Static):
        np.random.seed(0)
        model = cls()
        model.to_device('@numpy')
        for p in model.params():
            p.array = p.array.astype(dtype)
        opt = optimizers.Adam().setup(model)
        rs = np.random.RandomState(0)
        out = []
        for _ in range(4):
            x = rs.rand(6, 7).astype(dtype)
            t = rs.randint(0, 5, 6).astype(np.int32)
            loss = F.softmax_cross_entropy(model(x), t)
            model.cleargrads()
            loss.backward()
            opt.update()
            out += [loss.array] + [p.grad.copy() for p in model.params()]
        results.append(out)
    _assert_identical(results[0], results[1])
    sched = model.static_schedule
    names = [op.__name__ for op in sched.ops]
    assert names == ['linear_bias', 'tanh', 'sigmoid', 'step1', 'relu', 'linear']
    assert [op.__name__ for op in sched.back_ops] == [
        'linear_grad', 'relu_grad', 'dropout_grad', 'sigmoid_grad', 'tanh_grad', 'linear_grad']


def test_buffers_are_reused_only_inside_the_schedule():
    model = StaticPlainMLP()
    x = np.ones((3, 7), np.float32)
    F.sum(model(x)).backward()
    y1 = model(x)
    sched = y1.creator.schedule
    s = sched.steps[1][3][0]                 # ReLU's result: only the schedule reads it
    inner1 = y1.creator._bufs[s]
    F.sum(y1).backward()
    y2 = model(x)
    assert y2.creator._bufs[s] is inner1
    # The chain's outputs are fresh arrays at every call: results kept stay as they were.
    kept = y1.array.copy()
    F.sum(y2).backward()
    with chainlite.no_backprop_mode():
        y3 = model(2 * x)
        y4 = model(3 * x)
    assert y1.array is not y2.array and y3.array is not y4.array
    np.testing.assert_array_equal(y1.array, kept)
    assert not np.array_equal(y3.array, y4.array)


def test_results_that_leave_the_schedule_are_never_buffers():
    # A view of a Linear's result returned by the chain, and an intermediate handed to
    # static_code, must keep their values after later calls.
    kept = []

    @chainlite.static_code
    def keep(inputs):
        kept.append(inputs[0])

    class Views(chainlite.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(4, 6)
                self.l2 = L.Linear(6, 6)

        @chainlite.static_graph
        def forward(self, x):
            h = F.relu(self.l1(x))
            keep(inputs=[h.array])
            return F.reshape(self.l2(h), (-1,)), h

    model = Views()
    outs = []
    for k in range(4):
        with chainlite.no_backprop_mode():
            y, h = model(np.full((2, 4), k, np.float32))
        outs.append((y.array.copy(), y.array, h.array))
    for copy, y, h in outs:
        np.testing.assert_array_equal(copy, y)
    assert all(not np.shares_memory(a, b) for a, b in zip(kept, kept[1:]))
    assert len({id(h) for _, _, h in outs}) == 4


class Branching(PlainMLP):
    # h feeds two Linears (its gradient is a sum) and the chain returns two results.

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l3 = L.Linear(20, 5)

    def forward(self, x):
        h = F.relu(self.l1(x))
        return self.l2(h), F.tanh(self.l3(h))


class StaticBranching(Branching):
    forward = chainlite.static_graph(Branching.forward)


def test_two_outputs_and_a_shared_result_match_define_by_run():
    rs = np.random.RandomState(4)
    xs = [rs.rand(5, 7).astype(np.float32) for _ in range(3)]
    results = []
    for cls in (Branching, StaticBranching):
        np.random.seed(2)
        model = cls()
        opt = optimizers.MomentumSGD(lr=0.1).setup(model)
        out = []
        for x in xs:
            a, b = model(x)
            loss = F.sum(a * a) + F.sum(b)
            model.cleargrads()
            loss.backward()
            opt.update()
            out += [loss.array] + [p.grad.copy() for p in model.params()]
        results.append(out)
    _assert_identical(results[0], results[1])
    assert model.static_schedule.back_ops is not None


def test_batch_normalization_train_and_test_mode_with_gradients():
    # In test mode the running statistics are read (and backward still runs): the replay
    # must give define-by-run's outputs and gradients in both modes.
    class Dyn(chainlite.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(7, 12)
                self.bn = L.BatchNormalization(12)
                self.l2 = L.Linear(12, 3)

        def forward(self, x):
            return self.l2(F.relu(self.bn(self.l1(x))))

    class Static(Dyn):
        forward = chainlite.static_graph(Dyn.forward)

    rs = np.random.RandomState(7)
    xs = [rs.rand(6, 7).astype(np.float32) for _ in range(6)]
    results = []
    for cls in (Dyn, Static):
        np.random.seed(1)
        model = cls()
        opt = optimizers.SGD(lr=0.1).setup(model)
        out = []
        for k, x in enumerate(xs):
            with chainlite.using_config('train', k % 3 != 2):
                loss = F.sum(model(x) ** 2)
            model.cleargrads()
            loss.backward()
            opt.update()
            out += [loss.array, model.bn.avg_mean.copy(), model.bn.avg_var.copy()]
            out += [p.grad.copy() for p in model.params()]
        results.append(out)
    _assert_identical(results[0], results[1])


def test_function_hooks_during_forward_see_the_node_and_gradients_stay_exact():
    rs = np.random.RandomState(3)
    xs = [rs.rand(4, 7).astype(np.float32) for _ in range(3)]
    grads = []
    for cls in (PlainMLP, StaticPlainMLP):
        np.random.seed(0)
        model = cls()
        out = []
        for x in xs:
            hook = chainlite.function_hooks.TimerHook()
            with hook:
                y = F.sum(model(x) ** 2)
                model.cleargrads()
                y.backward()
            out += [p.grad.copy() for p in model.params()]
        grads.append(out)
        names = {name for name, _ in hook.call_history}
    _assert_identical(grads[0], grads[1])
    # (the backward then walks the recorded graph, whose functions the hook sees too)
    assert 'StaticScheduleFunction' in names


def test_config_change_records_without_warning_and_replays_each_mode():
    model = StaticPlainMLP()
    x = np.ones((3, 7), np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        for _ in range(3):
            F.sum(model(x)).backward()
            with chainlite.using_config('train', False):
                F.sum(model(x)).backward()
            with chainlite.no_backprop_mode():
                model(x)
    assert len(model.schedule_manager.schedules) == 3
    assert model.python_calls == 3


class Unrolled(chainlite.Chain):
    # One Linear applied at three steps: its weight and bias get three gradients per call.

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.cell = L.Linear(7, 7)

    def forward(self, x):
        h = x
        for _ in range(3):
            h = F.tanh(self.cell(h))
        return h


class StaticUnrolled(Unrolled):
    forward = chainlite.static_graph(Unrolled.forward)


@pytest.mark.parametrize('calls', [1, 2])
@pytest.mark.parametrize('hooked', [False, True])
def test_weight_shared_inside_the_chain(hooked, calls):
    # The weight is used three times a call (more than two summands: the replay walks the
    # recorded graph): its gradients (on arrays, or through backward() on Variables while a
    # function hook is active) are define-by-run's to the bit. With two calls before one
    # backward, define-by-run adds the six summands in its walk's order and the replays add
    # two sums of three, so there the results agree only to rounding.
    outs = []
    for cls in (Unrolled, StaticUnrolled):
        np.random.seed(0)
        model = cls()
        for _ in range(3):
            with contextlib.ExitStack() as stack:
                if hooked:
                    stack.enter_context(chainlite.function_hooks.TimerHook())
                loss = F.sum(model(np.full((2, 7), 0.5, np.float32)))
                if calls == 2:
                    loss = loss * F.sum(model(np.full((2, 7), -0.25, np.float32)))
                model.cleargrads()
                loss.backward()
        outs.append((model.cell.W.grad.copy(), model.cell.b.grad.copy()))
    for a, b in zip(*outs):
        if calls == 1:
            np.testing.assert_array_equal(a, b)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-5)
