"""L.Maxout: the Linear child, initializers of natural shape, forward/backward."""
import numpy as np
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import initializers


def _uniform(*shape, seed=0):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)


def test_child_and_defaults():
    layer = L.Maxout(3, 4, 2)
    assert [n for n, _ in layer.namedparams()] == ['/linear/W', '/linear/b']
    assert layer.linear.W.shape == (8, 3) and layer.linear.W.dtype == np.float32
    assert isinstance(layer.linear.W.initializer, initializers.LeCunNormal)
    np.testing.assert_array_equal(layer.linear.b.array, 0)
    assert (layer.out_size, layer.pool_size) == (4, 2)


def test_forward_is_max_over_pools():
    W, b = _uniform(2, 3, 4, seed=1), _uniform(2, 3, seed=2)    # out 2, pool 3, in 4
    layer = L.Maxout(4, 2, 3, initialW=W, initial_bias=b)
    x = _uniform(5, 4)
    expected = (np.einsum('opi,ni->nop', W, x) + b).max(axis=2)
    np.testing.assert_allclose(layer(x).array, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(layer(x).array, F.maxout(layer.linear(x), 3).array)


def test_backward_reaches_the_linear_child():
    layer = L.Maxout(3, 2, 2)
    layer.cleargrads()
    F.sum(layer(_uniform(4, 3))).backward()
    assert layer.linear.W.grad.shape == (4, 3)
    # Each example sends gradient 1 to one unit of each pool.
    assert layer.linear.b.grad.reshape(2, 2).sum(axis=1).tolist() == [4, 4]


def test_no_bias_and_scalar_initializers():
    layer = L.Maxout(2, 1, 2, initialW=1.0, initial_bias=None)
    assert layer.linear.b is None
    np.testing.assert_array_equal(layer(np.ones((1, 2), np.float32)).array, [[2]])


def test_callable_initializers_see_natural_shapes():
    shapes = []

    def fill(array):
        shapes.append(array.shape)
        array[...] = np.arange(array.size).reshape(array.shape)

    layer = L.Maxout(4, 2, 3, initialW=fill, initial_bias=fill)
    assert shapes == [(2, 3, 4), (2, 3)]
    np.testing.assert_array_equal(layer.linear.W.array, np.arange(24).reshape(6, 4))
    with chainlite.using_config('dtype', np.float64):
        assert L.Maxout(4, 2, 3).linear.W.dtype == np.float64


def test_errors():
    with pytest.raises(ValueError, match='Maxout: initialW must have 3 dimensions'):
        L.Maxout(4, 2, 3, initialW=np.zeros((6, 4)))
    with pytest.raises(ValueError, match='Maxout: initial_bias must have 2 dimensions'):
        L.Maxout(4, 2, 3, initial_bias=np.zeros(6))
