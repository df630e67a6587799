"""L.Scale: a learned or given scale from an axis, with an optional learned Bias child."""
import numpy as np
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L


def test_learned_scale_shape_and_default():
    layer = L.Scale(W_shape=(3,))
    assert layer.W.shape == (3,) and layer.W.dtype == np.float32
    np.testing.assert_array_equal(layer.W.array, 1)
    assert [n for n, _ in layer.namedparams()] == ['/W'] and layer.axis == 1
    with chainlite.using_config('dtype', np.float16):
        assert L.Scale(W_shape=(3,)).W.dtype == np.float16


def test_bias_term_adds_a_bias_child():
    layer = L.Scale(W_shape=(2, 3), bias_term=True)
    assert [n for n, _ in layer.namedparams()] == ['/W', '/bias/b']
    assert isinstance(layer.bias, L.Bias) and layer.bias.b.shape == (2, 3)
    layer = L.Scale(axis=2, bias_term=True, bias_shape=(4,))
    assert [n for n, _ in layer.namedparams()] == ['/bias/b'] and layer.bias.axis == 2


def test_learned_scale_forward_and_backward():
    layer = L.Scale(axis=1, W_shape=(3,), bias_term=True)
    layer.W.array[...] = [1, 2, 3]
    layer.bias.b.array[...] = [0.5, 0, -0.5]
    layer.cleargrads()
    x = np.random.RandomState(0).uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    y = layer(x)
    expected = F.bias(F.scale(x, layer.W, 1), layer.bias.b, 1)
    np.testing.assert_array_equal(y.array, expected.array)
    F.sum(y).backward()
    np.testing.assert_allclose(layer.W.grad, x.sum(axis=(0, 2)), rtol=1e-5)
    np.testing.assert_array_equal(layer.bias.b.grad, np.full(3, 8, np.float32))


def test_given_scale():
    layer = L.Scale(axis=1)
    y = layer(np.ones((1, 2, 2), np.float32), np.array([2.0, 3.0], np.float32))
    np.testing.assert_array_equal(y.array, [[[2, 2], [3, 3]]])
    layer = L.Scale(bias_term=True, bias_shape=(2,))
    layer.bias.b.array[...] = 1
    y = layer(np.ones((1, 2), np.float32), np.array([2.0, 3.0], np.float32))
    np.testing.assert_array_equal(y.array, [[3, 4]])


def test_errors():
    with pytest.raises(ValueError, match='Scale: bias_shape must be given'):
        L.Scale(bias_term=True)
    with pytest.raises(TypeError, match='Scale: with a learned W, forward takes one input'):
        L.Scale(W_shape=(2,))(np.zeros((1, 2)), np.zeros(2))
    with pytest.raises(TypeError, match='Scale: without a learned W'):
        L.Scale()(np.zeros((1, 2)))
