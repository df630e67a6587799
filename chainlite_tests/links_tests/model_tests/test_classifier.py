import numpy as np
import pytest

import chainlite
import chainlite.functions as F
from chainlite.links.model.classifier import Classifier
from chainlite.reporter import Reporter


class _Affine(chainlite.Chain):
    # A tiny predictor: y = x W^T + b, with keyword-only ``scale`` to test keyword inputs.
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.W = chainlite.Parameter(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
                                                  np.float32))
            self.b = chainlite.Parameter(np.array([0.0, 0.5, -1.0], np.float32))

    def forward(self, x, scale=1.0):
        return F.linear(x, self.W, self.b) * scale


_X = np.array([[2.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, -1.0]], np.float32)
_T = np.array([0, 1, 2, 0], np.int32)


def _softmax_cross_entropy(y, t):
    y = y - y.max(axis=1, keepdims=True)
    log_p = y - np.log(np.exp(y).sum(axis=1, keepdims=True))
    return -log_p[np.arange(len(t)), t].mean()


def _scores(scale=1.0):
    W = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], np.float32)
    return (_X @ W.T + [0.0, 0.5, -1.0]) * scale


def test_loss_accuracy_and_attributes():
    model = Classifier(_Affine())
    loss = model(_X, _T)
    y = _scores()
    np.testing.assert_allclose(loss.array, _softmax_cross_entropy(y, _T), rtol=1e-6)
    assert model.loss is loss
    np.testing.assert_allclose(model.y.array, y, rtol=1e-6)
    expected_accuracy = (y.argmax(axis=1) == _T).mean()
    assert float(model.accuracy.array) == pytest.approx(expected_accuracy)
    assert loss.dtype == np.float32


def test_predictor_is_a_registered_child():
    model = Classifier(_Affine())
    assert [name for name, _ in model.namedparams()] == ['/predictor/W', '/predictor/b']
    assert model.predictor.name == 'predictor'


def test_backward_reaches_the_predictor_parameters():
    model = Classifier(_Affine())
    model.cleargrads()
    model(_X, _T).backward()
    assert model.predictor.W.grad.shape == (3, 2)
    assert np.abs(model.predictor.b.grad).sum() > 0


def test_reports_loss_and_accuracy_under_the_observer_name():
    model = Classifier(_Affine())
    r = Reporter()
    r.add_observer('main', model)
    observation = {}
    with r.scope(observation):
        loss = model(_X, _T)
    assert set(observation) == {'main/loss', 'main/accuracy'}
    assert observation['main/loss'].array is loss.array
    assert observation['main/loss'].creator is None  # detached from the graph
    assert observation['main/accuracy'].array is model.accuracy.array


def test_children_report_under_their_paths_as_a_trainer_registers_them():
    class Reporting(_Affine):
        def forward(self, x):
            y = super().forward(x)
            chainlite.reporter.report({'mean': F.mean(y)}, self)
            return y

    model = Classifier(Reporting())
    r = Reporter()
    r.add_observer('main', model)
    r.add_observers('main', model.namedlinks(skipself=True))
    observation = {}
    with r.scope(observation):
        model(_X, _T)
    assert set(observation) == {'main/loss', 'main/accuracy', 'main/predictor/mean'}


def test_without_reporter_nothing_is_needed():
    model = Classifier(_Affine())
    assert model(_X, _T) is model.loss


def test_compute_accuracy_false_skips_accuracy():
    model = Classifier(_Affine())
    model.compute_accuracy = False
    observation = {}
    r = Reporter()
    r.add_observer('main', model)
    with r.scope(observation):
        model(_X, _T)
    assert model.accuracy is None
    assert set(observation) == {'main/loss'}
    assert Classifier.compute_accuracy is True


def test_label_key_int_picks_a_positional_argument():
    model = Classifier(_Affine(), label_key=0)
    loss = model(_T, _X)
    np.testing.assert_allclose(loss.array, _softmax_cross_entropy(_scores(), _T), rtol=1e-6)


def test_label_key_negative_other_than_last():
    seen = []

    class Record(chainlite.Link):
        def forward(self, *args):
            seen.append(args)
            return F.identity(args[0])

    model = Classifier(Record(), lossfun=lambda y, t: F.sum(y), accfun=lambda y, t: None,
                       label_key=-2)
    model(_X, _T, 'extra')
    assert len(seen[0]) == 2 and seen[0][0] is _X and seen[0][1] == 'extra'


def test_label_key_str_picks_a_keyword_argument_and_passes_the_rest():
    model = Classifier(_Affine(), label_key='t')
    kwargs = {'t': _T, 'scale': 2.0}
    loss = model(_X, **kwargs)
    np.testing.assert_allclose(loss.array, _softmax_cross_entropy(_scores(2.0), _T), rtol=1e-6)
    assert 't' in kwargs


def test_custom_loss_and_accuracy_functions():
    calls = []

    def lossfun(y, t):
        calls.append('loss')
        return F.sum(y)

    def accfun(y, t):
        calls.append('acc')
        return chainlite.Variable(np.array(0.25, np.float32))

    model = Classifier(_Affine(), lossfun=lossfun, accfun=accfun)
    loss = model(_X, _T)
    np.testing.assert_allclose(loss.array, _scores().sum(), rtol=1e-6)
    assert calls == ['loss', 'acc']
    assert float(model.accuracy.array) == 0.25


def test_label_key_errors():
    with pytest.raises(TypeError, match='Classifier: label_key must be int or str'):
        Classifier(_Affine(), label_key=1.5)
    with pytest.raises(ValueError, match=r'Classifier: Label key 2 \(label_key\) is out of bounds'):
        Classifier(_Affine(), label_key=2)(_X, _T)
    with pytest.raises(ValueError, match=r'Classifier: Label key -1 \(label_key\) is out of'):
        Classifier(_Affine())()
    with pytest.raises(ValueError, match='Classifier: Label key "t" .* is not found'):
        Classifier(_Affine(), label_key='t')(_X, _T)


def test_attributes_are_reset_when_the_predictor_fails():
    model = Classifier(_Affine())
    model(_X, _T)
    with pytest.raises(Exception):
        model(np.ones((4, 5), np.float32), _T)
    assert model.y is None and model.loss is None and model.accuracy is None
