"""Whole models exported and run in ONNX Runtime, compared with chainlite in test mode.

Adding a model is one entry in MODELS: a name, a function building the model and a
function building its example inputs.
"""
import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L


def _rand(*shape, seed=0):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(numpy.float32)


class MLP(chainlite.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, 16)
            self.l2 = L.Linear(16, 16)
            self.l3 = L.Linear(16, 10)

    def forward(self, x):
        return self.l3(F.relu(self.l2(F.relu(self.l1(x)))))


class LeNet(chainlite.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(1, 4, 5, pad=2)
            self.bn1 = L.BatchNormalization(4)
            self.conv2 = L.Convolution2D(4, 8, 5)
            self.bn2 = L.BatchNormalization(8)
            self.fc1 = L.Linear(None, 32)
            self.fc2 = L.Linear(32, 10)

    def forward(self, x):
        h = F.max_pooling_2d(F.relu(self.bn1(self.conv1(x))), 2)
        h = F.max_pooling_2d(F.relu(self.bn2(self.conv2(h))), 2)
        h = F.dropout(F.relu(self.fc1(h)), 0.5)
        return F.softmax(self.fc2(h))


class ResidualUp(chainlite.Chain):
    """A residual block, then a deconvolution that doubles the resolution."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.c1 = L.Convolution2D(4, 4, 3, pad=1, nobias=True)
            self.b1 = L.BatchNormalization(4)
            self.c2 = L.Convolution2D(4, 4, 3, pad=1, nobias=True)
            self.b2 = L.BatchNormalization(4)
            self.up = L.Deconvolution2D(4, 2, 4, stride=2, pad=1)

    def forward(self, x):
        h = F.relu(self.b1(self.c1(x)))
        h = F.relu(self.b2(self.c2(h)) + x)
        return F.sigmoid(self.up(h))


class EmbedMatmul(chainlite.Chain):
    """Token embeddings scored against a query by a matrix product, then attention."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(20, 8)
            self.query = L.Linear(8, 8)

    def forward(self, ids):
        e = self.embed(ids)                                    # (B, T, 8)
        q = self.query(F.mean(e, axis=1))                      # (B, 8)
        scores = F.matmul(e, F.expand_dims(q, 2))[:, :, 0]     # (B, T)
        w = F.softmax(scores, axis=1)
        return F.sum(e * F.broadcast_to(w[:, :, None], e.shape), axis=1)


class LSTMLanguageModel(chainlite.Chain):
    """Embedding, a two-layer NStepLSTM and a softmax over the vocabulary per step."""

    def __init__(self, vocab=15, units=8):
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(vocab, units)
            self.lstm = L.NStepLSTM(2, units, units, 0.1)
            self.out = L.Linear(units, vocab)

    def forward(self, ids):
        xs = [self.embed(ids[i]) for i in range(ids.shape[0])]
        hy, cy, ys = self.lstm(None, None, xs)
        return F.log_softmax(self.out(F.concat(ys, axis=0))), hy, cy


def _ids(shape, high, seed=0):
    return numpy.random.RandomState(seed).randint(0, high, shape).astype(numpy.int32)


MODELS = [
    ('mlp', MLP, lambda: [_rand(3, 12)]),
    ('lenet_bn_dropout', LeNet, lambda: [_rand(2, 1, 16, 16)]),
    ('residual_deconvolution', ResidualUp, lambda: [_rand(2, 4, 5, 5)]),
    ('embed_matmul', EmbedMatmul, lambda: [_ids((2, 6), 20)]),
    ('lstm_language_model', LSTMLanguageModel, lambda: [_ids((3, 5), 15)]),
]


def _train_a_little(model, inputs):
    # Running statistics away from their initial values, so batch normalization matters.
    with chainlite.using_config('train', True):
        for k in range(3):
            model(*[chainlite.Variable(a) for a in inputs])


@pytest.mark.parametrize('opset', [None, 9])
@pytest.mark.parametrize('name,build,make_inputs', MODELS, ids=[m[0] for m in MODELS])
def test_model(ox, name, build, make_inputs, opset):
    numpy.random.seed(0)
    model = build()
    inputs = make_inputs()
    _train_a_little(model, inputs)
    proto = ox.check_export(model, inputs, opset_version=opset)
    names = {i.name for i in proto.graph.initializer}
    for path, _ in model.namedparams():
        assert 'param' + path.replace('/', '_') in names


# The models whose batch is axis 0 of their input, and their inputs for a batch of b.
DYNAMIC_BATCH = [
    ('mlp', MLP, lambda b: [_rand(b, 12, seed=b)]),
    ('lenet_bn_dropout', LeNet, lambda b: [_rand(b, 1, 16, 16, seed=b)]),
    ('residual_deconvolution', ResidualUp, lambda b: [_rand(b, 4, 5, 5, seed=b)]),
    ('embed_matmul', EmbedMatmul, lambda b: [_ids((b, 6), 20, seed=b)]),
]


@pytest.mark.parametrize('name,build,make_inputs', DYNAMIC_BATCH,
                         ids=[m[0] for m in DYNAMIC_BATCH])
def test_model_with_symbolic_batch(ox, name, build, make_inputs):
    # Exported on a batch of 2 with input_shapes=('N', ...), run on batches of 1, 3 and 7.
    numpy.random.seed(0)
    model = build()
    _train_a_little(model, make_inputs(2))
    ox.check_dynamic_batch(model, make_inputs)


def test_lstm_language_model_uses_onnx_lstm(ox):
    model = LSTMLanguageModel()
    proto = ox.check_export(model, [_ids((3, 5), 15)])
    assert ox.op_types(proto).count('LSTM') == 2


@pytest.mark.parametrize('name,size', [
    pytest.param('ResNet50Layers', 32, id='resnet50'),
    # VGG16's fully connected layers need 224x224 inputs: 138M parameters to write and run.
    pytest.param('VGG16Layers', 224, id='vgg16', marks=pytest.mark.slow),
])
def test_vision_model_without_pretrained_weights(ox, name, size):
    numpy.random.seed(0)
    model = getattr(L, name)(pretrained_model=None)      # the architecture, no download
    x = _rand(1, 3, size, size)
    proto = ox.check_export(model, [x])
    names = {i.name for i in proto.graph.initializer}
    assert {'param' + path.replace('/', '_') for path, _ in model.namedparams()} <= names
