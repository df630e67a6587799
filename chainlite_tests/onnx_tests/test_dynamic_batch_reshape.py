"""Reshapes that fold the batch into another axis and back, exported with a symbolic batch.

``Linear(..., n_batch_axes=2)`` on ``(N, T, D)`` and user code reshaping ``(N, T, D)`` to
``(N * T, D)`` and back record the example's sizes; the exporter runs the model a second
time at a larger batch to see which sizes follow it, and writes those from the input's
shape. Each model is exported once and run in ONNX Runtime at several batch sizes.
"""
import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite.onnx.functions import _ops


def _rand(*shape, seed=0):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(numpy.float32)


def _batch(*feature_shape):
    return lambda b: [_rand(b, *feature_shape, seed=b)]


def _reshape_targets(proto):
    # The constant shape of each Reshape node, or None where the graph computes it.
    from onnx import numpy_helper
    consts = {n.output[0]: numpy_helper.to_array(n.attribute[0].t).tolist()
              for n in proto.graph.node if n.op_type == 'Constant'}
    return [consts.get(n.input[1]) for n in proto.graph.node if n.op_type == 'Reshape']


class TimeDistributed(chainlite.Chain):
    """A Linear applied to every step of (N, T, D) through n_batch_axes=2."""

    def __init__(self, d=4, out=3):
        super().__init__()
        with self.init_scope():
            self.l = L.Linear(d, out)

    def forward(self, x):
        return self.l(x, n_batch_axes=2)


class FoldAndUnfold(chainlite.Chain):
    """User code: (N, T, D) -> (N * T, D) for a Linear, then back to (N, T, out)."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l = L.Linear(4, 6)

    def forward(self, x):
        n, t, d = x.shape
        h = F.tanh(self.l(F.reshape(x, (n * t, d))))
        return F.reshape(h, (n, t, 6))


class AttentionBlock(chainlite.Chain):
    """MultiHeadAttention, then a position-wise feed-forward written with folded reshapes."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.attention = L.MultiHeadAttention(8, 2)
            self.ff1 = L.Linear(8, 16)
            self.ff2 = L.Linear(16, 8)

    def forward(self, x):
        n, t, d = x.shape
        h = x + self.attention(x)
        flat = F.reshape(h, (n * t, d))
        ff = F.reshape(self.ff2(F.relu(self.ff1(flat))), (n, t, d))
        return h + self.ff1(ff, n_batch_axes=2)[:, :, :8]


class LSTMTagger(chainlite.Chain):
    """An L.LSTM stepped over (N, T, D), its states stacked to (N, T, H), scored per step."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.lstm = L.LSTM(5, 6)
            self.out = L.Linear(6, 3)

    def forward(self, x):
        self.lstm.reset_state()
        hs = F.stack([self.lstm(x[:, t]) for t in range(x.shape[1])], axis=1)
        n, t, h = hs.shape
        return F.reshape(self.out(F.reshape(hs, (n * t, h))), (n, t, 3))


class NStepTagger(chainlite.Chain):
    """F.n_step_lstm over the steps of (N, T, D); its outputs scored by n_batch_axes=2."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.rnn = L.NStepLSTM(1, 5, 4, 0.0)
            self.out = L.Linear(4, 2)

    def forward(self, x):
        xs = [x[:, t] for t in range(x.shape[1])]
        _, _, ys = F.n_step_lstm(1, 0.0, None, None, self.rnn.ws, self.rnn.bs, xs)
        return self.out(F.stack(ys, axis=1), n_batch_axes=2)


MODELS = [
    ('linear_n_batch_axes_2', TimeDistributed, _batch(5, 4)),
    ('fold_and_unfold', FoldAndUnfold, _batch(3, 4)),
    ('attention_block', AttentionBlock, _batch(3, 8)),
    ('lstm_tagger', LSTMTagger, _batch(4, 5)),
    ('n_step_tagger', NStepTagger, _batch(3, 5)),
]


@pytest.mark.parametrize('opset', [None, 9])
@pytest.mark.parametrize('example_batch', [1, 2])
@pytest.mark.parametrize('name,build,make_inputs', MODELS, ids=[m[0] for m in MODELS])
def test_model_runs_at_any_batch_size(ox, name, build, make_inputs, example_batch, opset):
    numpy.random.seed(0)
    proto = ox.check_dynamic_batch(build(), make_inputs, example_batch=example_batch,
                                   opset_version=opset)
    # No Reshape writes the example's batch: each has -1 or 0 for it.
    for target in _reshape_targets(proto):
        assert target is not None and (-1 in target or 0 in target), target


def test_unflatten_is_written_with_minus_one_for_the_batch(ox):
    proto = ox.export(TimeDistributed(), _rand(2, 5, 4), input_shapes=('N', 5, 4))
    assert _reshape_targets(proto) == [[-1, 4], [-1, 5, 3]]


def test_without_input_shapes_the_reshapes_are_as_before(ox):
    # Not a symbolic export: one run, and the shapes the single run gives.
    calls = []

    class Counted(TimeDistributed):
        def forward(self, x):
            calls.append(len(x))
            return super().forward(x)

    proto = ox.export(Counted(), _rand(2, 5, 4))
    assert calls == [2]
    assert _reshape_targets(proto) == [[-1, 4], [2, 5, 3]]


def test_the_second_run_is_at_a_larger_batch_on_a_copy(ox):
    seen = []

    class Recording(TimeDistributed):
        def forward(self, x):
            seen.append((id(self), x.shape))
            return super().forward(x)

    model = Recording()
    ox.export(model, _rand(2, 5, 4), input_shapes=('N', 5, 4))
    assert seen[0] == (id(model), (2, 5, 4))
    assert seen[1][1] == (4, 5, 4) and seen[1][0] != id(model)
    assert len(seen) == 2


def test_literal_equal_to_the_example_batch_stays_a_literal(ox):
    # F.reshape(x, (2, -1)) on a batch of 2: the 2 is the model's, not the batch.
    fn = ox.Fn(lambda x: F.reshape(x, (2, -1)) * 1)
    proto = ox.check_dynamic_batch(fn, _batch(3), example_batch=2, batches=(4, 6))
    assert _reshape_targets(proto) == [[2, -1]]


def test_two_batch_axes_copy_from_the_input_shape(ox):
    # (N, N, 3) -> (1, 1, N, N, 3): two output sizes follow the batch, read from Shape(x).
    fn = ox.Fn(lambda x: F.reshape(x, (1, 1) + x.shape) * 1)
    x = _rand(2, 2, 3)
    proto = ox.export(fn, x, input_shapes=('N', 'N', 3))
    assert {'Shape', 'Gather', 'Concat'} <= set(ox.op_types(proto))
    for b in (1, 3, 5):
        xb = _rand(b, b, 3, seed=b)
        got, = ox.run_onnx(proto, [xb])
        numpy.testing.assert_array_equal(got, xb.reshape(1, 1, b, b, 3))


def test_batch_and_time_both_symbolic(ox):
    # Folding (N, T) into one axis is fine; the time axis is not folded back.
    fn = ox.Fn(lambda x: F.sum(F.reshape(x, (-1, 4)), axis=1))
    x = _rand(2, 3, 4)
    proto = ox.export(fn, x, input_shapes=('N', 'T', 4))
    for n, t in ((1, 5), (4, 2)):
        xb = _rand(n, t, 4, seed=n)
        got, = ox.run_onnx(proto, [xb])
        numpy.testing.assert_allclose(got, xb.reshape(-1, 4).sum(axis=1), rtol=1e-6)


@pytest.mark.parametrize('name,build', [
    ('linear_n_batch_axes_2', TimeDistributed),
    ('fold_and_unfold', FoldAndUnfold),
    ('attention_block', AttentionBlock),
])
def test_batch_and_length_both_symbolic(ox, name, build):
    # (N * T, M) back to (N, T, M): N and T read from the graph's input, not the example's.
    numpy.random.seed(0)
    model = build()
    d = 8 if name == 'attention_block' else 4
    proto = ox.export(model, _rand(2, 3, d), input_shapes=('N', 'T', d))
    assert 'Gather' in ox.op_types(proto)
    for n, t in ((1, 5), (4, 2), (3, 3)):
        x = _rand(n, t, d, seed=n)
        with chainlite.using_config('train', False):
            expected = model(x).array
        got, = ox.run_onnx(proto, [x])
        numpy.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_reshape_without_a_size_to_copy_is_a_clear_error(ox):
    # (N, T, 4) to (2 * N, 2 * T): two output sizes follow N and T, neither is an input's.
    fn = ox.Fn(lambda x: F.reshape(x * 2, (2 * len(x), 2 * x.shape[1])))
    with pytest.raises(ValueError) as e:
        ox.export(fn, _rand(2, 5, 4), input_shapes=('N', 'T', 4))
    message = str(e.value)
    assert 'cannot export Reshape_0, a reshape of (2, 5, 4) to (4, 10), with symbolic ' \
        'input sizes: in a second run at larger sizes it reshaped (4, 15, 4) to (8, 30), ' \
        'so output axes [0, 1] follow the symbolic sizes' in message


def test_model_that_runs_only_at_the_example_batch_is_a_clear_error(ox):
    fn = ox.Fn(lambda x: F.reshape(x, (2, 5, 4)) * 1)
    with pytest.raises(ValueError, match=r'the model is run a second time with larger ones '
                                         r'\(inputs \(2, 20\) -> \(4, 20\)\).*that run failed'):
        ox.export(fn, _rand(2, 20), input_shapes=('N', 20))


def test_model_whose_graph_follows_the_batch_is_a_clear_error(ox):
    fn = ox.Fn(lambda x: F.stack([x[i] * 2 for i in range(len(x))]))
    with pytest.raises(ValueError, match=r'applied other functions then \(5 functions against '
                                         r'9; function 4 is Stack against GetItem\)'):
        ox.export(fn, _rand(2, 3), input_shapes=('N', 3))


def test_symbolic_length_of_a_python_loop_over_time_is_a_clear_error(ox):
    # LSTMTagger steps through x.shape[1] in Python: one graph per length.
    with pytest.raises(ValueError, match=r'inputs \(2, 3, 5\) -> \(4, 9, 5\).*applied other '
                                         r'functions then \(18 functions against 48'):
        ox.export(LSTMTagger(), _rand(2, 3, 5), input_shapes=('N', 'T', 5))


def test_the_second_run_leaves_the_model_state_alone(ox):
    # An LSTM link that keeps its state, and batch statistics updated in training mode.
    class Stateful(chainlite.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.lstm = L.LSTM(3, 4)
                self.bn = L.BatchNormalization(4)

        def forward(self, x):
            return self.bn(self.lstm(x))

    model = Stateful()
    ox.export(model, _rand(2, 3), input_shapes=('N', 3), train=True)
    assert model.lstm.h.shape == (2, 4)
    reference = Stateful()
    reference.copyparams(model, copy_persistent=False)
    with chainlite.using_config('train', True):
        reference(_rand(2, 3))
    numpy.testing.assert_allclose(model.bn.avg_mean, reference.bn.avg_mean, rtol=1e-6)


def test_reshape_following_writes_copies_and_one_minus_one():
    from onnx import numpy_helper
    from chainlite.onnx import onnx_helper
    onnx_helper.set_func_name('Reshape_7')
    gb = onnx_helper.GraphBuilder()
    # (N, T, D) -> (N, T * D): the batch copied from its own axis (ONNX's 0).
    _ops.reshape_following(gb, 'x', ((2, 3, 4), (2, 12)), ((4, 3, 4), (4, 12)))
    node, = [n for n in gb.nodes() if n.op_type == 'Constant']
    assert numpy_helper.to_array(node.attribute[0].t).tolist() == [0, 12]
    # (N * T, D) -> (N, T, D) with N and T symbolic: both read from the graph's input.
    gb = onnx_helper.GraphBuilder()
    _ops.reshape_following(gb, 'x', ((6, 4), (2, 3, 4)), ((24, 4), (4, 6, 4)),
                           inputs=[('Input_0', (2, 3, 4), (4, 6, 4))])
    shapes = [n for n in gb.nodes() if n.op_type == 'Shape']
    assert [n.input for n in shapes] == [['Input_0']]
    gathers = [n for n in gb.nodes() if n.op_type == 'Gather']
    assert len(gathers) == 2
    # Without the graph's input, neither size is there to copy.
    with pytest.raises(ValueError, match=r'cannot export Reshape_7, a reshape of \(6, 4\) to '
                                         r'\(2, 3, 4\).*reshaped \(24, 4\) to \(4, 6, 4\)'):
        _ops.reshape_following(onnx_helper.GraphBuilder(), 'x', ((6, 4), (2, 3, 4)),
                               ((24, 4), (4, 6, 4)))


def test_twin_shares_the_parameter_arrays_but_not_the_state():
    from chainlite.onnx import _scaled_run
    model = LSTMTagger()
    model.lstm(_rand(2, 5))
    twin = _scaled_run.twin(model)
    assert twin is not model
    assert twin.lstm.upward.W.array is model.lstm.upward.W.array
    twin.lstm.reset_state()
    assert model.lstm.h.shape == (2, 6)


def test_twin_of_a_model_with_uninitialised_parameters(ox):
    # Linear(None, 3) has no W (nor gradient) until the first run.
    class Lazy(TimeDistributed):
        def __init__(self):
            chainlite.Chain.__init__(self)
            with self.init_scope():
                self.l = L.Linear(None, 3)

    ox.check_dynamic_batch(Lazy(), _batch(5, 4))
