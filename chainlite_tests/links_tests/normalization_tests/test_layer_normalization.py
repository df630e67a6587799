import numpy as np
import pytest

import chainlite
import chainlite.functions as F
from chainlite import initializers
from chainlite.links.normalization.layer_normalization import LayerNormalization

# The input Chainer 7.8.1 normalized to the reference output below (default eps 1e-6).
_X = np.array([[0.0, 2.0049644, 0.10620008],
               [2.5637968, -1.9375331, 4.9718223]], np.float32)
_Y_CHAINER = np.array([[-0.76396877, 1.4126453, -0.64867663],
                       [0.24367161, -1.3282636, 1.084592]], np.float32)


def test_defaults_and_output_equal_chainers():
    ln = LayerNormalization()
    assert ln.eps == 1e-6
    assert ln.gamma.array is None and ln.beta.array is None
    y = ln(_X)
    np.testing.assert_allclose(y.array, _Y_CHAINER, rtol=1e-5, atol=1e-6)
    assert ln.gamma.shape == ln.beta.shape == (3,)
    assert {name for name, _ in ln.namedparams()} == {'/gamma', '/beta'}


def test_size_creates_parameters_at_once():
    ln = LayerNormalization(4)
    np.testing.assert_array_equal(ln.gamma.array, np.ones(4, np.float32))
    np.testing.assert_array_equal(ln.beta.array, np.zeros(4, np.float32))


def test_initial_gamma_and_beta_scale_and_shift():
    ln = LayerNormalization(3, eps=0.0, initial_gamma=2.0,
                            initial_beta=initializers.Constant(np.array([0.0, 1.0, 2.0])))
    y = ln(_X)
    mean = _X.mean(axis=1, keepdims=True)
    std = _X.std(axis=1, keepdims=True)
    np.testing.assert_allclose(y.array, 2 * (_X - mean) / std + [0.0, 1.0, 2.0], rtol=1e-5)


def test_array_initial_gamma_gives_an_initialized_parameter():
    ln = LayerNormalization(initial_gamma=np.arange(3.0))
    assert ln.gamma.dtype == np.float64
    np.testing.assert_array_equal(ln.gamma.array, [0.0, 1.0, 2.0])
    assert ln.beta.array is None


def test_backward_reaches_parameters():
    ln = LayerNormalization()
    x = chainlite.Variable(_X)
    y = ln(x)
    ln.cleargrads()
    F.sum(y * np.arange(6, dtype=np.float32).reshape(2, 3)).backward()
    assert ln.gamma.grad.shape == (3,) and ln.gamma.grad.dtype == np.float32
    np.testing.assert_allclose(ln.beta.grad, [3.0, 5.0, 7.0])
    assert x.grad.shape == _X.shape


def test_config_dtype_sets_parameter_dtype():
    with chainlite.using_config('dtype', np.float64):
        ln = LayerNormalization(3)
    assert ln.gamma.dtype == np.float64
    assert ln(_X.astype(np.float64)).dtype == np.float64


def test_input_must_be_two_dimensional():
    ln = LayerNormalization()
    with pytest.raises(chainlite.utils.type_check.InvalidType, match='LayerNormalization'):
        ln(np.ones((2, 3, 4), np.float32))
