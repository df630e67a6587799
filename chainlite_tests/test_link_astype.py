"""Tests of Link.astype: parameters, gradients, persistents, optimizer state, training."""
import numpy as np
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import optimizers


def _model():
    np.random.seed(0)
    return chainlite.Sequential(L.Linear(3, 8), L.BatchNormalization(8), F.relu,
                                L.Linear(None, 2))


def _data(dtype):
    x = np.array([[1, 0, 0], [0, 1, 0], [1, 0, 1], [0, 1, 1]], dtype)
    return x, np.array([0, 1, 0, 1], np.int32)


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_dtypes_after(dtype):
    model = _model()
    x, _ = _data(np.float32)
    model(x)
    model.cleargrads()
    model[0].W.grad = np.ones_like(model[0].W.array)
    assert model.astype(dtype) is model
    for p in model.params():
        assert p.dtype == dtype
    assert model[0].W.grad.dtype == dtype and model[0].b.grad is None
    assert model[1].avg_mean.dtype == dtype and model[1].avg_var.dtype == dtype
    assert isinstance(model[1].N, int)


def test_lazy_parameters_are_created_in_the_new_dtype():
    model = _model().astype('float64')
    assert model[3].W.array is None
    y = model(_data(np.float64)[0])
    assert model[3].W.dtype == np.float64 and y.dtype == np.float64


@pytest.mark.parametrize('dtype', [np.float16, np.float64])
def test_forward_and_a_training_step(dtype):
    model = _model()
    model(_data(np.float32)[0])
    model.astype(dtype)
    optimizer = optimizers.MomentumSGD(lr=0.1).setup(model)
    x, t = _data(dtype)
    with chainlite.using_config('train', True):
        y = model(x)
        assert y.dtype == dtype
        before = model[0].W.array.copy()
        optimizer.update(lambda: F.softmax_cross_entropy(model(x), t))
    W = model[0].W
    assert W.dtype == dtype and W.grad.dtype == dtype
    assert not np.array_equal(W.array, before) and np.isfinite(W.array).all()
    assert W.update_rule.state['v'].dtype == dtype


def test_optimizer_state_is_cast_and_training_goes_on():
    model = _model()
    optimizer = optimizers.Adam().setup(model)
    x, t = _data(np.float32)
    optimizer.update(lambda: F.softmax_cross_entropy(model(x), t))
    model.astype(np.float64)
    assert model[0].W.update_rule.state['m'].dtype == np.float64
    x, t = _data(np.float64)
    optimizer.update(lambda: F.softmax_cross_entropy(model(x), t))
    assert model[0].W.dtype == np.float64
    assert model[0].W.update_rule.state['v'].dtype == np.float64
    # Set up again: fresh state, created in the new dtype.
    optimizer = optimizers.Adam().setup(model)
    optimizer.update(lambda: F.softmax_cross_entropy(model(x), t))
    assert model[0].W.update_rule.state['m'].dtype == np.float64


def test_round_trip():
    model = _model()
    model(_data(np.float32)[0])
    params = {name: p.array.copy() for name, p in model.namedparams()}
    model.astype(np.float64).astype(np.float32)
    for name, p in model.namedparams():
        assert p.dtype == np.float32
        np.testing.assert_array_equal(p.array, params[name])


def test_errors():
    with pytest.raises(TypeError, match='float dtype'):
        L.Linear(2, 2).astype(np.int32)
