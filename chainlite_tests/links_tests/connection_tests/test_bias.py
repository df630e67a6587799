"""L.Bias: a learned bias (one input) or a given one (two inputs), from an axis."""
import numpy as np
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L


def test_learned_bias_shape_and_default():
    layer = L.Bias(shape=(3,))
    assert layer.b.shape == (3,) and layer.b.dtype == np.float32
    np.testing.assert_array_equal(layer.b.array, 0)
    assert [n for n, _ in layer.namedparams()] == ['/b'] and layer.axis == 1
    assert str(layer) == 'Bias()'
    with chainlite.using_config('dtype', np.float64):
        assert L.Bias(shape=(3,)).b.dtype == np.float64


def test_learned_bias_forward_and_backward():
    layer = L.Bias(axis=1, shape=(3, 4))
    layer.b.array[...] = np.arange(12).reshape(3, 4)
    layer.cleargrads()
    x = np.ones((2, 3, 4, 5), np.float32)
    y = layer(x)
    np.testing.assert_array_equal(y.array, F.bias(x, layer.b, 1).array)
    np.testing.assert_array_equal(y.array[1, :, :, 2], 1 + np.arange(12).reshape(3, 4))
    F.sum(y).backward()
    np.testing.assert_array_equal(layer.b.grad, np.full((3, 4), 10, np.float32))


def test_given_bias():
    layer = L.Bias(axis=2)
    assert list(layer.params()) == []
    y = layer(np.zeros((1, 2, 3), np.float32), np.array([1.0, 2.0, 3.0], np.float32))
    np.testing.assert_array_equal(y.array, [[[1, 2, 3], [1, 2, 3]]])


def test_wrong_number_of_inputs():
    with pytest.raises(TypeError, match='Bias: with a learned bias, forward takes one input'):
        L.Bias(shape=(2,))(np.zeros((1, 2)), np.zeros(2))
    with pytest.raises(TypeError, match='Bias: without a learned bias'):
        L.Bias()(np.zeros((1, 2)))
