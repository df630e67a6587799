"""Tests of chainlite.utils.summary: rows, totals, the table, and no side effects."""
import numpy as np

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite.utils import summary


class MLP(chainlite.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(5, 4)
            self.l2 = L.Linear(4, 3)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


class CNN(chainlite.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(1, 2, 3, pad=1)
            self.bn = L.BatchNormalization(2)
            self.fc = L.Linear(None, 3)

    def forward(self, x):
        return self.fc(F.relu(self.bn(self.conv(x))))


class Nested(chainlite.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.body = MLP()
            self.head = L.Linear(3, 2)

    def forward(self, x):
        h = self.body(x)
        return self.head(h), self.head(h)  # one link called twice, two outputs


def test_mlp_rows_and_totals():
    model = MLP()
    s = summary(model, np.zeros((7, 5), np.float32))
    assert [(r.name, r.type, r.output_shape, r.dtype, r.params, r.depth) for r in s.rows] == [
        ('/', 'MLP', (7, 3), 'float32', 24 + 15, 0),
        ('/l1', 'Linear', (7, 4), 'float32', 24, 1),
        ('/l2', 'Linear', (7, 3), 'float32', 15, 1),
    ]
    assert s.total_params == 39 and s.param_bytes == 39 * 4 and s.param_dtypes == ['float32']
    text = str(s)
    assert text.splitlines()[0].split() == ['Link', '(type)', 'Output', 'shape', 'Dtype',
                                            'Params']
    assert '/l1 (Linear)' in text and 'Total params: 39 (156 bytes, float32)' in text
    assert repr(s) == text


def test_cnn_with_batch_normalization_changes_nothing():
    np.random.seed(0)
    model = CNN()
    model.bn.avg_mean[...] = [0.5, -0.5]
    mean, var, N = model.bn.avg_mean.copy(), model.bn.avg_var.copy(), model.bn.N
    x = np.random.rand(2, 1, 4, 4).astype(np.float32)
    with chainlite.using_config('train', True):
        s = summary(model, x)
    np.testing.assert_array_equal(model.bn.avg_mean, mean)
    np.testing.assert_array_equal(model.bn.avg_var, var)
    assert model.bn.N == N
    assert [(r.name, r.output_shape) for r in s.rows] == [
        ('/', (2, 3)), ('/conv', (2, 2, 4, 4)), ('/bn', (2, 2, 4, 4)), ('/fc', (2, 3))]
    # The lazy Linear was counted (32 * 3 + 3) but is uninitialised again.
    assert s.rows[3].params == 99
    assert s.total_params == 2 * 9 + 2 + 2 + 2 + 99
    assert model.fc.W.array is None


def test_lazy_initialisation_after_a_summary_gives_the_same_values():
    x = np.ones((2, 5), np.float32)
    np.random.seed(1)
    plain = L.Linear(None, 3)
    y_plain = plain(x).array
    np.random.seed(1)
    described = L.Linear(None, 3)
    summary(described, x)
    assert described.W.array is None
    y = described(x).array
    np.testing.assert_array_equal(y, y_plain)
    np.testing.assert_array_equal(described.W.array, plain.W.array)


def test_no_graph_and_no_gradients():
    model = MLP()
    model.cleargrads()
    s = summary(model, np.zeros((2, 5), np.float32))
    assert all(p.grad is None for p in model.params())
    assert s.rows[0].output_shape == (2, 3)


def test_nested_chains_a_link_called_twice_and_tuple_outputs():
    model = Nested()
    s = summary(model, np.zeros((3, 5), np.float32))
    assert [(r.name, r.depth) for r in s.rows] == [
        ('/', 0), ('/body', 1), ('/body/l1', 2), ('/body/l2', 2), ('/head', 1), ('/head', 1)]
    assert s.rows[0].output_shape == ((3, 2), (3, 2))
    assert s.rows[0].dtype == ('float32', 'float32')
    assert s.rows[1].params == 39 and s.total_params == 39 + 8
    assert '    /body/l1 (Linear)' in str(s)


def test_sequential_with_functions_and_kwargs_and_float64():
    model = chainlite.Sequential(L.Linear(4, 3), F.relu, L.Linear(3, 2))
    for p in model.params():
        p.array = p.array.astype(np.float64)
    s = summary(model, np.zeros((5, 4)))
    assert [r.name for r in s.rows] == ['/', '/0', '/1']  # ChainList numbers links only
    assert s.rows[-1].dtype == 'float64' and s.param_dtypes == ['float64']

    class WithKwarg(chainlite.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l = L.Linear(2, 2)

        def forward(self, x, scale=1.0):
            return self.l(x) * scale

    assert summary(WithKwarg(), np.zeros((1, 2), np.float32), scale=2.0).rows[0].params == 6
