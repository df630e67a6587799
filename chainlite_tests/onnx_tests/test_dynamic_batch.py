"""Exports with a symbolic batch axis (``input_shapes``), run at other batch sizes.

Each model or function is exported once, on an example batch, with axis 0 of its inputs
declared symbolic; ONNX Runtime then runs that one model at batch sizes 1, 3 and 7 and
its outputs are compared with chainlite's on the same inputs.
"""
import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L


def _rand(*shape, seed=0):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(numpy.float32)


def _batch(*feature_shape):
    # make_inputs for one float input of shape (b,) + feature_shape (other values per b).
    return lambda b: [_rand(b, *feature_shape, seed=b)]


class MLP(chainlite.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, 16)
            self.l2 = L.Linear(16, 10)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


class CNN(chainlite.Chain):
    """Convolution, pooling, then a Linear that flattens (N, 4, 4, 4) itself."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(1, 4, 3, pad=1)
            self.fc = L.Linear(None, 10)

    def forward(self, x):
        return self.fc(F.max_pooling_2d(F.relu(self.conv(x)), 2))


class ExplicitReshape(chainlite.Chain):
    """The flatten written out: F.reshape(h, (-1, 128))."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(1, 8, 3, pad=1)
            self.fc = L.Linear(128, 10)

    def forward(self, x):
        h = F.max_pooling_2d(F.relu(self.conv(x)), 2)
        return self.fc(F.reshape(h, (-1, 128)))


class SteppedLSTM(chainlite.Chain):
    """An L.LSTM stepped over the time axis of (N, T, 5); returns a score and the state c."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.lstm = L.LSTM(5, 6)
            self.out = L.Linear(6, 3)

    def forward(self, x):
        self.lstm.reset_state()
        for t in range(x.shape[1]):
            h = self.lstm(x[:, t])
        return self.out(h), self.lstm.c


class NStepFunction(chainlite.Chain):
    """F.n_step_lstm (or another n_step function) on the time steps of (N, T, 5)."""

    def __init__(self, link=L.NStepLSTM, function='n_step_lstm', cell_state=True):
        super().__init__()
        with self.init_scope():
            self.rnn = link(2, 5, 4, 0.0)
        self.function = function
        self.cell_state = cell_state

    def forward(self, x):
        xs = [x[:, t] for t in range(x.shape[1])]
        states = (None, None) if self.cell_state else (None,)
        # Looked up at each call: export replaces it by a wrapper recording one node.
        function = getattr(F, self.function)
        *hc, ys = function(2, 0.0, *states, self.rnn.ws, self.rnn.bs, xs)
        return (*hc, F.stack(ys, axis=1))


class StatelessSteps(chainlite.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.lstm = L.StatelessLSTM(5, 4)

    def forward(self, x):
        c = h = None
        for t in range(x.shape[1]):
            c, h = self.lstm(c, h, x[:, t])
        return c, h


class SteppedGRU(chainlite.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.gru = L.StatefulGRU(5, 4)

    def forward(self, x):
        self.gru.reset_state()
        for t in range(x.shape[1]):
            h = self.gru(x[:, t])
        return h


MODELS = [
    ('mlp', MLP, _batch(12)),
    ('cnn_linear_flattens', CNN, _batch(1, 8, 8)),
    ('explicit_reshape', ExplicitReshape, _batch(1, 8, 8)),
    ('stepped_lstm', SteppedLSTM, _batch(4, 5)),
    ('n_step_lstm', NStepFunction, _batch(3, 5)),
    ('n_step_bigru', lambda: NStepFunction(L.NStepBiGRU, 'n_step_bigru', False),
     _batch(3, 5)),
    ('stateless_lstm', StatelessSteps, _batch(3, 5)),
    ('stepped_gru', SteppedGRU, _batch(3, 5)),
]


@pytest.mark.parametrize('opset', [None, 9])
@pytest.mark.parametrize('example_batch', [1, 2])
@pytest.mark.parametrize('name,build,make_inputs', MODELS, ids=[m[0] for m in MODELS])
def test_model_runs_at_any_batch_size(ox, name, build, make_inputs, example_batch, opset):
    numpy.random.seed(0)
    proto = ox.check_dynamic_batch(build(), make_inputs, example_batch=example_batch,
                                   opset_version=opset)
    # ONNX's shape inference finds a batch axis of each output that is not a number.
    for out in proto.graph.output:
        assert not all(d.HasField('dim_value') for d in out.type.tensor_type.shape.dim), out


def test_unnamed_batch_axis(ox):
    proto = ox.check_dynamic_batch(CNN(), _batch(1, 8, 8), symbol=None)
    dim = proto.graph.input[0].type.tensor_type.shape.dim[0]
    assert not dim.HasField('dim_value') and not dim.HasField('dim_param')


def _reshape_shapes(proto):
    from onnx import numpy_helper
    consts = {n.output[0]: numpy_helper.to_array(n.attribute[0].t)
              for n in proto.graph.node if n.op_type == 'Constant'}
    return [consts[n.input[1]].tolist() for n in proto.graph.node if n.op_type == 'Reshape']


def test_reshape_keeps_minus_one_and_linear_flattens_per_example(ox):
    x = _rand(2, 1, 8, 8)
    assert _reshape_shapes(ox.export(ExplicitReshape(), x)) == [[-1, 128]]
    # Linear's own flatten of (N, 4, 4, 4): copy the batch, infer the rest.
    assert _reshape_shapes(ox.export(CNN(), x)) == [[0, -1]]


def test_without_input_shapes_the_inputs_keep_the_example_shape(ox):
    # onnx_chainer's default: the graph's input has the example's shape.
    proto = ox.export(CNN(), _rand(2, 1, 8, 8))
    assert [d.dim_value for d in proto.graph.input[0].type.tensor_type.shape.dim] == \
        [2, 1, 8, 8]


def test_lstm_zero_state_follows_the_batch(ox):
    proto = ox.export(SteppedLSTM(), _rand(2, 4, 5), input_shapes=('N', 4, 5))
    types = ox.op_types(proto)
    assert 'ConstantOfShape' in types
    # No constant of the example's batch size is left in the graph.
    assert not [i for i in proto.graph.initializer if tuple(i.dims) == (2, 6)]


def test_stepped_lstm_model_is_restored_after_export(ox):
    model = SteppedLSTM()
    ox.export(model, _rand(2, 4, 5))
    x = _rand(3, 4, 5)
    with chainlite.using_config('train', False):
        _, c = model(x)
    assert c.shape == (3, 6) and c.creator is not None
    assert 'ZeroState' not in type(c.creator).__name__


_W = _rand(5, 12, seed=11)
_Y = _rand(3, 1, seed=12)

FUNCTIONS = [
    ('reshape_minus_one', lambda x: F.reshape(x, (-1, 4)) * 1, _batch(3, 4)),
    ('reshape_len', lambda x: F.reshape(x, (len(x), -1)) * 1, _batch(3, 4)),
    ('reshape_split_axis', lambda x: F.reshape(x, (len(x), 2, 6)) * 1, _batch(12)),
    ('flatten_by_linear', lambda x: F.linear(x, _W), _batch(3, 4)),
    ('broadcast_to', lambda x: F.broadcast_to(x[:, :, None], (len(x), 3, 4)), _batch(3)),
    ('broadcast', lambda x: F.broadcast(x, _Y), _batch(1, 4)),
    ('sum_to', lambda x: F.sum_to(x, (3,)), _batch(3)),
    ('tile', lambda x: F.tile(x, (1, 2, 1)), _batch(3)),
    ('repeat_batch_axis', lambda x: F.repeat(x, 2, axis=0), _batch(3)),
    ('repeat_feature_axis', lambda x: F.repeat(x, 2, axis=1), _batch(3)),
    ('vstack', lambda x: F.vstack([x[:, 0], x[:, 1]]), _batch(2)),
    ('dstack', lambda x: F.dstack([x, x * 2]), _batch(3)),
    ('get_item_from_one', lambda x: x[1:], _batch(3)),
    ('get_item_negative_stop', lambda x: x[:-1, ::2], _batch(3)),
    ('get_item_reversed', lambda x: x[::-1, 1], _batch(3)),
    ('flip', lambda x: F.flip(x, 0), _batch(3)),
    ('flipud', F.flipud, _batch(3)),
    ('maxout', lambda x: F.maxout(x, 2), _batch(6)),
    ('bias', lambda x: F.bias(x, _Y[:, 0], axis=1), _batch(3, 2)),
    ('resize_images', lambda x: F.resize_images(x, (4, 6)), _batch(2, 2, 3)),
    ('unpooling_2d', lambda x: F.unpooling_2d(x, 2, cover_all=False), _batch(2, 2, 3)),
    ('group_normalization', lambda x: F.group_normalization(
        x, 2, numpy.ones(4, numpy.float32), numpy.zeros(4, numpy.float32)), _batch(4, 3)),
    ('lstm', lambda c, x: F.lstm(c, x), lambda b: [_rand(b, 3, seed=b), _rand(b, 12)]),
    ('softmax_cross_entropy_unnormalized',
     lambda x, t: F.softmax_cross_entropy(x, t, normalize=False),
     lambda b: [_rand(b, 3, seed=b), numpy.arange(b, dtype=numpy.int32) % 3]),
    ('softmax_cross_entropy',
     lambda x, t: F.softmax_cross_entropy(x, t),
     lambda b: [_rand(b, 3, seed=b), numpy.arange(b, dtype=numpy.int32) % 3]),
]


@pytest.mark.parametrize('name,fn,make_inputs', FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_function_runs_at_any_batch_size(ox, name, fn, make_inputs):
    ox.check_dynamic_batch(ox.Fn(fn), make_inputs, example_batch=2)


@pytest.mark.parametrize('opset,fn,make_inputs', [
    (9, lambda x: x[1:], _batch(3)),                 # Slice's bounds as attributes
    (10, lambda x: x[:-1, ::-1], _batch(3)),
    (9, lambda x: F.resize_images(x, (4, 6), mode='nearest'), _batch(2, 2, 3)),  # Upsample
    (10, lambda x: F.unpooling_2d(x, 2, cover_all=False), _batch(2, 2, 3)),
])
def test_older_opsets(ox, opset, fn, make_inputs):
    ox.check_dynamic_batch(ox.Fn(fn), make_inputs, opset_version=opset)


# input_shapes in onnx_chainer's forms: a tuple for one input, a list or a dict for several.

class _Add(chainlite.Chain):
    def forward(self, a, b=None):
        return a * 1 if b is None else a + b


@pytest.mark.parametrize('shapes,args', [
    ([('N', 3), ('N', 3)], 'list'),
    ({'a': ('N', 3), 'b': (None, 3)}, 'dict'),
    ([('N', 3), ('M', 3)], 'dict'),              # a list in the dict's order
    ({0: ('N', 3), 1: ('N', 3)}, 'list'),        # a dict keyed by position
    ([('N', 3)], 'one'),
    (('N', 3), 'tuple_of_one'),                  # one input in a tuple: its shape
])
def test_input_shapes_forms(ox, shapes, args):
    x, y = _rand(2, 3), _rand(2, 3, seed=1)
    args = {'list': [x, y], 'dict': {'a': x, 'b': y}, 'one': [x], 'tuple_of_one': (x,)}[args]
    proto = ox.export(_Add(), args, input_shapes=shapes)
    given = list(shapes.values()) if isinstance(shapes, dict) else shapes
    if isinstance(given, tuple):
        given = [given]
    dims = [i.type.tensor_type.shape.dim[0] for i in proto.graph.input]
    assert [d.dim_param for d in dims] == [s[0] or '' for s in given]
    assert not any(d.HasField('dim_value') for d in dims)
    values = list(args.values()) if isinstance(args, dict) else list(args)
    out, = ox.run_onnx(proto, [numpy.concatenate([v] * 3) for v in values])
    numpy.testing.assert_allclose(out, numpy.concatenate([sum(values)] * 3), rtol=1e-6)


def test_input_shapes_with_the_example_sizes(ox):
    proto = ox.export(_Add(), _rand(1, 3), input_shapes=(1, 3))
    assert [d.dim_value for d in proto.graph.input[0].type.tensor_type.shape.dim] == [1, 3]


@pytest.mark.parametrize('args,shapes,message', [
    ('one', '?', 'must be a tuple'),
    ('one', ('?', 3, 3), 'has 3 axes'),
    ('one', [('?', 3), ('?', 3)], '2 input_shapes given for 1'),
    ('one', ['N', 3], "input_shapes[0] must be a shape"),
    ('one', (4, 3), 'fixes axis 0 to 4'),
    ('one', ('N', 3.0), 'axis 1 is 3.0'),
    ('one', ('', 3), "axis 0 is ''"),
    ('two', ('N', 3), 'one shape (a tuple) but there are 2 inputs'),
    ('two', [('N', 3)], '1 input_shapes given for 2'),
    ('two', [('N', 3), ('N', 3, 1)], 'input_shapes[1] has 3 axes'),
    ('dict', {'a': ('N', 3), 'c': ('N', 3)}, "keys of the inputs"),
])
def test_invalid_input_shapes(ox, args, shapes, message):
    calls = []

    class Model(chainlite.Chain):
        def forward(self, *xs, **kw):
            calls.append(1)
            return (xs or list(kw.values()))[0] * 1

    model = Model()
    x = _rand(2, 3)
    args = {'one': x, 'two': [x, x], 'dict': {'a': x, 'b': x}}[args]
    with pytest.raises(ValueError) as e:
        ox.export(model, args, input_shapes=shapes)
    assert message in str(e.value)
    assert not calls  # checked before the model runs


@pytest.mark.parametrize('args,shapes,message', [
    ('one', (2, 5), r"export: input_shapes\[0\] fixes axis 1 to 5 \(shape \(2, 5\)\) but the "
                    r"example input has 4 there \(shape \(2, 4\)\)"),
    ('one', ('N', 5), r"input_shapes\[0\] fixes axis 1 to 5 \(shape \('N', 5\)\) but the "
                      r"example input has 4 there \(shape \(2, 4\)\)"),
    ('dict', {'x': (2, 4), 'y': (2, 4, 1)},
     r"export: input_shapes\['y'\] has 3 axes \(shape \(2, 4, 1\)\) but the example input "
     r"has 2 \(shape \(2, 4\)\)"),
])
def test_input_shapes_that_contradict_the_example_name_input_and_both_shapes(ox, args, shapes,
                                                                           message):
    # Not onnx's "Field 'shape' of 'type' is required but missing" from the checker.
    x = _rand(2, 4)
    model = {'one': L.Linear(4, 3), 'dict': _Add()}[args]
    args = {'one': x, 'dict': {'x': x, 'y': x}}[args]
    with pytest.raises(ValueError, match=message):
        ox.export(model, args, input_shapes=shapes)
