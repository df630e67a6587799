"""Names added so that every Chainer 7.8.1 module-level name resolves (test_chainer_names.py).

Each test checks what the name does, as Chainer does it without a GPU.
"""
import importlib
import warnings

import numpy as np
import pytest

import chainlite
from chainlite import compat


@pytest.fixture
def chainer():
    compat.install()
    try:
        yield importlib.import_module('chainer')
    finally:
        compat.uninstall()


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


# -- the five names libraries were found to need ------------------------------------------------

def test_attr_check_available_and_dummy_callable(chainer):
    from chainer.testing import attr
    assert attr.is_available() is True and attr.get_error() is None
    assert attr.check_available() is None
    with pytest.raises(AssertionError):
        attr._dummy_callable()


def test_attr_check_available_raises_without_pytest(monkeypatch):
    from chainlite.testing import attr
    monkeypatch.setattr(attr, '_checked', True)
    monkeypatch.setattr(attr, '_error', ImportError('No module named pytest'))
    assert not attr.is_available()
    with pytest.raises(RuntimeError, match='(?s)not available.*ImportError: No module named'):
        attr.check_available()
    with pytest.raises(RuntimeError):
        attr._dummy_callable(lambda: None)


def test_testing_training_is_always_available(chainer):
    from chainer.testing import training
    assert training.is_available() and training.get_error() is None
    training.check_available()


def test_gradient_check_assert_allclose_warns_and_compares(chainer):
    from chainer import gradient_check
    with pytest.warns(DeprecationWarning, match='testing.assert_allclose'):
        gradient_check.assert_allclose(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-6]))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        with pytest.raises(AssertionError):
            gradient_check.assert_allclose(np.array([1.0]), np.array([1.1]))
        # The tolerances are passed on, positionally as in Chainer.
        gradient_check.assert_allclose(np.array([1.0]), np.array([1.1]), 0.2, 0)


def test_link_device_id_is_none_on_the_cpu(chainer):
    link = chainer.links.Linear(2, 3)
    with pytest.warns(DeprecationWarning, match='_device_id'):
        assert link._device_id is None
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        assert chainer.Chain()._device_id is None
        link.to_device('@numpy')
        assert link._device_id is None


def test_function_backprop_mode_aliases(chainer):
    import chainer.function as function
    assert function.no_backprop_mode is chainer.no_backprop_mode
    assert function.force_backprop_mode is chainer.force_backprop_mode
    assert function.FunctionHook is chainer.FunctionHook
    x = chainer.Variable(np.array([1.0, 2.0]))
    with function.no_backprop_mode():
        y = x * 2
        with function.force_backprop_mode():
            z = x * 3
    assert y.creator is None and z.creator is not None


@pytest.mark.parametrize('batch,n_in,n_units', [(3, 4, 5), (1, 2, 1)])
def test_n_step_lstm_private_lstm_is_one_step(chainer, batch, n_in, n_units):
    from chainer.functions.rnn.n_step_lstm import _lstm
    F = chainer.functions
    rng = np.random.RandomState(0)
    w = [rng.randn(n_units, n_in) for _ in range(4)] + \
        [rng.randn(n_units, n_units) for _ in range(4)]
    b = [rng.randn(n_units) for _ in range(8)]
    x, h, c = rng.randn(batch, n_in), rng.randn(batch, n_units), rng.randn(batch, n_units)
    h1, c1 = _lstm(x, h, c, w, b)
    # Gates i, f, a (candidate), o from x @ W_k.T + h @ W_{k+4}.T + b_k + b_{k+4}.
    g = [x @ w[k].T + h @ w[k + 4].T + b[k] + b[k + 4] for k in range(4)]
    c_ref = _sigmoid(g[1]) * c + _sigmoid(g[0]) * np.tanh(g[2])
    h_ref = _sigmoid(g[3]) * np.tanh(c_ref)
    np.testing.assert_allclose(c1.array, c_ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(h1.array, h_ref, rtol=1e-12, atol=1e-12)
    # The same step as a one-layer n_step_lstm over one time step.
    hy, cy, _ = F.n_step_lstm(1, 0.0, h[None], c[None], [w], [b], [x])
    np.testing.assert_allclose(hy.array[0], h1.array, rtol=1e-12)
    np.testing.assert_allclose(cy.array[0], c1.array, rtol=1e-12)
    # Differentiable through x, h, c and the weights.
    xv = chainer.Variable(x)
    hv, cv = _lstm(xv, h, c, w, b)
    F.sum(hv + cv).backward()
    assert xv.grad.shape == x.shape and np.all(np.isfinite(xv.grad))


def test_n_step_lstm_private_lstm_gradients():
    from chainlite import gradient_check
    from chainlite.functions.rnn.n_step_lstm import _lstm
    rng = np.random.RandomState(1)
    x, h, c = rng.randn(2, 3), rng.randn(2, 2), rng.randn(2, 2)
    w = [rng.randn(2, 3) for _ in range(4)] + [rng.randn(2, 2) for _ in range(4)]
    b = [rng.randn(2) for _ in range(8)]

    def f(x, h, c, *wb):
        return _lstm(x, h, c, list(wb[:8]), list(wb[8:]))

    gy = (rng.randn(2, 2), rng.randn(2, 2))
    gradient_check.check_backward(f, (x, h, c, *w, *b), gy, dtype=np.float64)
